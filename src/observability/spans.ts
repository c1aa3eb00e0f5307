/**
 * The gateway's spans, in one place: the server span of each request (HTTP semantic
 * conventions), an internal span per pipeline step (auth, rate limit, budget, usage write), and a
 * client span per upstream attempt (GenAI semantic conventions), plus the W3C context carried to
 * upstreams. Each request's context travels explicitly (`req.ctx.trace`, the caller context),
 * never through an async-local store. With tracing off nothing here is installed or called:
 * every helper takes the `Tracing` it needs, and the pipeline skips it when that is null.
 * @module
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import { GatewayError } from '../errors';
import type { Tracing } from './tracing';

/**
 * GenAI attributes (semantic conventions 1.45, still "development"): copied here rather than
 * imported from the package's `incubating` entry, as the package advises for unstable names.
 */
const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';

/** The gateway's own attributes, where no convention applies. */
export const ATTR_FALLBACK_REASON = 'switchyard.fallback.reason';
export const ATTR_UPSTREAM_OUTCOME = 'switchyard.upstream.outcome';
const ATTR_REQUEST_ID = 'switchyard.request_id';
const ATTR_MODEL = 'switchyard.model';

/** Methods the HTTP conventions know; anything else is recorded as `_OTHER`. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

/** Trace and span id of the span in `context`, for log lines; undefined when it has none. */
export function traceIds(context: Context | undefined): { trace_id: string; span_id: string } | undefined {
  const span = context && trace.getSpanContext(context);
  return span ? { trace_id: span.traceId, span_id: span.spanId } : undefined;
}

/** The trace id of the span in `context` when its trace is sampled (exported), else undefined: an exemplar must lead to a trace that exists. */
export function sampledTraceId(context: Context): string | undefined {
  const span = trace.getSpanContext(context);
  return span && (span.traceFlags & TraceFlags.SAMPLED) !== 0 ? span.traceId : undefined;
}

/**
 * Middleware starting each request's SERVER span, as the child of the caller's W3C `traceparent`
 * when it sent one. Its name becomes `{method} {route template}` and it ends when the answer is
 * finished (or the client went away), with the status code; a 5xx marks it as an error.
 */
export function traceRequests(tracing: Tracing): RequestHandler {
  return function traceRequest(req: Request, res: Response, next: NextFunction): void {
    const method = KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
    const parent = tracing.propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
    const span = tracing.tracer.startSpan(
      method === '_OTHER' ? 'HTTP' : method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: method,
          [ATTR_URL_PATH]: req.path,
          [ATTR_URL_SCHEME]: req.protocol,
          [ATTR_REQUEST_ID]: req.ctx.requestId,
        },
      },
      parent,
    );
    req.ctx.trace = trace.setSpan(parent, span);
    let open = true;
    const end = (): void => {
      if (!open) return;
      open = false;
      const route = req.ctx.route;
      if (route !== 'unmatched') {
        span.setAttribute(ATTR_HTTP_ROUTE, route);
        span.updateName(`${method === '_OTHER' ? 'HTTP' : method} ${route}`);
      }
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
      if (res.statusCode >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(res.statusCode));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    next();
  };
}

/** Mark `span` failed by `err`: its class as `error.type`, and the message when it is a client-safe GatewayError. */
function fail(span: Span, err: unknown): void {
  span.setAttribute(ATTR_ERROR_TYPE, err instanceof Error ? err.name : 'unknown');
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof GatewayError ? err.message : undefined });
}

/**
 * `step` (a middleware) inside an INTERNAL span named `name`, a child of the request's span: it
 * ends when the step passes on (`next`), throws or rejects (a refusal: an error span), or the
 * answer ends. Without tracing the step is returned as it is.
 */
export function tracedStep(tracing: Tracing | null, name: string, step: RequestHandler): RequestHandler {
  if (!tracing) return step;
  return function traced(req: Request, res: Response, next: NextFunction) {
    const parent = req.ctx.trace;
    if (!parent) return step(req, res, next);
    const span = tracing.tracer.startSpan(name, undefined, parent);
    let open = true;
    const end = (err?: unknown): void => {
      if (!open) return;
      open = false;
      if (err) fail(span, err);
      span.end();
    };
    try {
      const out: unknown = step(req, res, (err?: unknown) => {
        end(err);
        next(err);
      });
      if (out instanceof Promise) {
        return out.then(
          () => end(),
          (err: unknown) => {
            end(err);
            throw err;
          },
        );
      }
      if (open) res.once('close', () => end());
    } catch (err) {
      end(err);
      throw err;
    }
  };
}

/** `work` inside an INTERNAL span named `name` under `parent`, ended when it settles (an error span if it rejects). */
export function tracedWork<T>(tracing: Tracing, parent: Context, name: string, work: Promise<T>): Promise<T> {
  const span = tracing.tracer.startSpan(name, undefined, parent);
  return work.then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      fail(span, err);
      span.end();
      throw err;
    },
  );
}

/** What an upstream attempt's span records when it starts. */
export interface UpstreamAttempt {
  /** GenAI operation, e.g. `embeddings`. */
  operation: string;
  /** The provider's slug. */
  provider: string;
  /** The model name sent to the provider. */
  upstreamModel: string;
  /** The gateway's catalog model id. */
  model: string;
  /** The provider's base URL (its host and port are recorded, never the URL itself). */
  baseUrl: string;
  /** Why the previous candidate was left (its outcome, or `circuit_open`); null for the first attempt. */
  fallbackReason: string | null;
}

/** How an upstream attempt ended. */
export interface UpstreamAttemptEnd {
  outcome: string;
  status: number | null;
  inputTokens?: number | null;
}

/**
 * Start the CLIENT span of one upstream attempt under `parent`, named `{operation} {model}` as the
 * GenAI conventions say. Returns the span and the context to inject into its upstream calls.
 */
export function startUpstreamAttempt(
  tracing: Tracing,
  parent: Context,
  a: UpstreamAttempt,
): { span: Span; context: Context } {
  const url = new URL(a.baseUrl);
  const span = tracing.tracer.startSpan(
    `${a.operation} ${a.upstreamModel}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [GEN_AI_OPERATION_NAME]: a.operation,
        [GEN_AI_PROVIDER_NAME]: a.provider,
        [GEN_AI_REQUEST_MODEL]: a.upstreamModel,
        [ATTR_MODEL]: a.model,
        [ATTR_SERVER_ADDRESS]: url.hostname,
        [ATTR_SERVER_PORT]: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
        ...(a.fallbackReason ? { [ATTR_FALLBACK_REASON]: a.fallbackReason } : {}),
      },
    },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}

/** End an attempt's span with its outcome: the upstream's status, and an error unless it succeeded. */
export function endUpstreamAttempt(span: Span, end: UpstreamAttemptEnd): void {
  span.setAttribute(ATTR_UPSTREAM_OUTCOME, end.outcome);
  if (end.status !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, end.status);
  if (end.inputTokens != null) span.setAttribute(GEN_AI_USAGE_INPUT_TOKENS, end.inputTokens);
  if (end.outcome !== 'ok') {
    span.setAttribute(ATTR_ERROR_TYPE, end.outcome);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** Write the W3C `traceparent` (and `tracestate`) of `context` into outgoing `headers`. */
export function injectTraceContext(tracing: Tracing, context: Context, headers: Record<string, string>): void {
  tracing.propagator.inject(context, headers, defaultTextMapSetter);
}
