/**
 * The passthrough proxy: forwards OpenAI-compatible routes the gateway does not implement
 * itself (chat, completions, models) to one configured upstream with http-proxy-middleware.
 * Bodies and responses are piped, never parsed or buffered, so SSE streams arrive chunk by
 * chunk. The client's credentials are removed and the upstream's key is sent instead; upstream
 * cookies are not passed back. A failure to reach the upstream becomes the 502 envelope, and one
 * that does not finish within the timeout becomes 524, written by the proxy's own error handler
 * with the one envelope writer ({@link sendError}). With tracing on, the request's trace context
 * replaces whatever `traceparent` the client sent.
 * @module
 */
import { ServerResponse, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import { UpstreamError, UpstreamTimeoutError } from '../errors';
import type { Logger } from '../observability/logger';
import { sendError } from '../http/error-handler';
import type { Tracing } from '../observability/tracing';
import { injectTraceContext } from '../observability/spans';

/** What the proxy needs from config `passthrough.*`. */
export interface PassthroughOptions {
  /** Upstream base including its version path, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** The upstream's API key; null sends no Authorization at all. */
  apiKey: string | null;
  /** Longest upstream silence (socket idle, ms) before the exchange is abandoned with 524. */
  timeoutMs: number;
}

/** Client headers that carry the client's own credentials or account and must not reach the upstream. */
const CLIENT_CREDENTIAL_HEADERS = [
  'authorization',
  'api-key',
  'x-api-key',
  'cookie',
  'openai-organization',
  'openai-project',
];

/** Requests whose upstream exchange hit `proxyTimeout`, so the resulting socket error is reported as a timeout (524). */
const timedOut = new WeakSet<IncomingMessage>();

function replaceCredentials(apiKey: string | null, tracing: Tracing | null) {
  return function onProxyReq(proxyReq: ClientRequest, req: IncomingMessage): void {
    for (const name of CLIENT_CREDENTIAL_HEADERS) proxyReq.removeHeader(name);
    if (apiKey) proxyReq.setHeader('Authorization', `Bearer ${apiKey}`);
    const trace = (req as Request).ctx?.trace;
    if (tracing && trace) {
      const headers: Record<string, string> = {};
      injectTraceContext(tracing, trace, headers);
      for (const [name, value] of Object.entries(headers)) proxyReq.setHeader(name, value);
    }
    proxyReq.once('timeout', () => timedOut.add(req));
  };
}

function onProxyRes(proxyRes: IncomingMessage): void {
  delete proxyRes.headers['set-cookie'];
}

/**
 * Build the proxy middleware (once, at boot).
 * @example createPassthroughProxy({ baseUrl: 'http://127.0.0.1:8000/v1', apiKey: 'sk-up', timeoutMs: 600000 }, logger)
 */
export function createPassthroughProxy(
  options: PassthroughOptions,
  logger: Logger,
  tracing: Tracing | null = null,
): RequestHandler {
  const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: options.baseUrl,
    changeOrigin: true,
    proxyTimeout: options.timeoutMs,
    // Only the event wiring and http-proxy's own error guards; our handler renders failures.
    ejectPlugins: true,
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
    on: {
      proxyReq: replaceCredentials(options.apiKey, tracing),
      proxyRes: onProxyRes,
      error(err, req, res) {
        const code = (err as NodeJS.ErrnoException).code ?? 'unknown';
        logger.warn('passthrough upstream failed', { code });
        if (!(res instanceof ServerResponse)) return void res.destroy(); // a WebSocket upgrade: no HTTP answer to give
        const error =
          timedOut.has(req) || code === 'ETIMEDOUT'
            ? new UpstreamTimeoutError({ reason: 'passthrough_timeout' })
            : new UpstreamError({ reason: 'passthrough_unreachable', code });
        sendError(res, error);
      },
    },
  });
  return proxy;
}
