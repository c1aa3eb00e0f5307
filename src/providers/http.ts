/**
 * The one place that talks HTTP to upstreams: a shared keep-alive undici Agent, a per-attempt
 * timeout, and classification of whatever happens into an {@link UpstreamResult} value. Nothing
 * here throws for an upstream problem; the fallback runner decides what a result means.
 * @module
 */
import { Agent, type Dispatcher } from 'undici';
import type { EmbeddingsAdapter, UpstreamRequest } from './types';
import { wholeBody, type BodyBytes } from './raw-json';
import { openStream, type StreamOpening } from './http-stream';

/** What `http.ts` needs of an adapter: its overload signal, if it has its own. */
type OverloadSignal = Pick<EmbeddingsAdapter, 'isOverloaded'>;

/** How an upstream attempt ended. */
export type UpstreamOutcome = 'ok' | 'timeout' | 'overloaded' | 'rate_limited' | 'server' | 'client' | 'network';

/** A finished attempt as a value: the parsed body when ok, else the failure's kind. */
export type UpstreamResult =
  | {
      outcome: 'ok';
      status: number;
      /** The raw body bytes, as the chunks they arrived in; the adapter parses them (invalid → a `server` failure). */
      body: BodyBytes;
      /** Time until the whole body had arrived (the upstream's share of the request). */
      elapsedMs: number;
    }
  | {
      outcome: Exclude<UpstreamOutcome, 'ok'>;
      /** HTTP status when the upstream answered; null for timeouts and network failures. */
      status: number | null;
      /** Seconds from the upstream's `Retry-After`, when sent. */
      retryAfterSeconds?: number;
      /** Short, secret-free reason for logs (never the upstream body). */
      reason: string;
    };

/** A failed attempt as a value. */
export type UpstreamFailure = Exclude<UpstreamResult, { outcome: 'ok' }>;

/** The largest upstream body accepted (2048 inputs × 3072 floats is about 130 MB of JSON). */
const MAX_BODY_BYTES = 256 * 1024 * 1024;
/** URLs whose parse is kept (catalog endpoints; a bound in case URLs ever carry per-request parts). */
const MAX_TARGETS = 1024;

/** Options of the shared upstream connection pool. */
export interface UpstreamHttpOptions {
  connectionsPerOrigin: number;
  keepAliveTimeoutMs: number;
}

/** Owns the keep-alive connection pool to every upstream origin. */
export class UpstreamHttp {
  private readonly agent: Agent;
  private readonly targets = new Map<string, { origin: string; path: string }>();

  constructor(opts: UpstreamHttpOptions) {
    this.agent = new Agent({
      connections: opts.connectionsPerOrigin,
      keepAliveTimeout: opts.keepAliveTimeoutMs,
      keepAliveMaxTimeout: Math.max(opts.keepAliveTimeoutMs, 60000),
      pipelining: 1,
    });
  }

  /**
   * POST `req` and classify the result; resolves (never rejects) within about `timeoutMs`.
   * Dispatched with a minimal handler that gathers the body chunks: no Readable stream, no
   * AbortSignal per call (undici's `request()` builds both, a measurable share of the hot path).
   * @param adapter - decides provider-specific overload signals
   */
  post(req: UpstreamRequest, adapter: OverloadSignal, timeoutMs: number): Promise<UpstreamResult> {
    const target = this.target(req.url);
    const started = performance.now();
    return new Promise<UpstreamResult>((resolve) => {
      let status = 0;
      let retryAfterHeader: string | string[] | undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      let controller: Dispatcher.DispatchController | undefined;
      const finish = (result: UpstreamResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const timer = setTimeout(() => {
        finish({ outcome: 'timeout', status: null, reason: `no answer within ${timeoutMs} ms` });
        controller?.abort(new Error('upstream attempt timed out'));
      }, Math.max(1, Math.ceil(timeoutMs)));
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(c) {
          controller = c;
          if (settled) c.abort(new Error('upstream attempt timed out'));
        },
        onResponseStart(_c, statusCode, headers) {
          status = statusCode;
          retryAfterHeader = headers['retry-after'];
        },
        onResponseData(c, chunk) {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            finish({ outcome: 'server', status, reason: `upstream body over ${MAX_BODY_BYTES} bytes` });
            c.abort(new Error('upstream body too large'));
            return;
          }
          chunks.push(chunk);
        },
        onResponseEnd() {
          if (status >= 200 && status < 300) finish({ outcome: 'ok', status, body: chunks, elapsedMs: performance.now() - started });
          else finish(classifyStatus(status, wholeBody(chunks).toString('utf8'), retryAfter(retryAfterHeader), adapter));
        },
        onResponseError(_c, err) {
          finish({ outcome: 'network', status: null, reason: (err as { code?: string }).code ?? 'connection failed' });
        },
      };
      try {
        this.agent.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers: req.headers, body: req.body }, handler);
      } catch (err) {
        finish({ outcome: 'network', status: null, reason: (err as { code?: string }).code ?? 'connection failed' });
      }
    });
  }

  /**
   * POST `req` for a streamed answer: resolves once the upstream answers (within about
   * `timeoutMs`), with the flowing body on a 2xx, else the classified failure.
   */
  stream(req: UpstreamRequest, adapter: OverloadSignal, timeoutMs: number): Promise<StreamOpening> {
    return openStream(this.agent, this.target(req.url), req, adapter.isOverloaded?.bind(adapter), timeoutMs);
  }

  /** Origin and path of an upstream URL, parsed once per URL (there is one per catalog endpoint). */
  private target(url: string): { origin: string; path: string } {
    let t = this.targets.get(url);
    if (!t) {
      const u = new URL(url);
      t = { origin: u.origin, path: u.pathname + u.search };
      if (this.targets.size < MAX_TARGETS) this.targets.set(url, t);
    }
    return t;
  }

  /** Close every pooled connection (shutdown, tests). */
  async close(): Promise<void> {
    await this.agent.close();
  }
}

/**
 * An upstream error status → outcome. 400/413/422 mean the request itself is bad (returned to the
 * client, no fallback); 401/403/404 and other 4xx mean the provider is misconfigured or does not
 * serve the model (a provider-side failure worth falling back from).
 */
export function classifyStatus(
  status: number,
  text: string,
  retryAfterSeconds: number | undefined,
  adapter: OverloadSignal,
): UpstreamFailure {
  const base = { status, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
  if (status === 429) return { outcome: 'rate_limited', ...base, reason: 'upstream rate limit' };
  if (status === 529 || (adapter.isOverloaded ?? defaultOverloaded)(status, text)) {
    return { outcome: 'overloaded', ...base, reason: 'upstream overloaded' };
  }
  if (status === 408 || status === 504) return { outcome: 'timeout', ...base, reason: `upstream ${status}` };
  if (status === 400 || status === 413 || status === 422) return { outcome: 'client', ...base, reason: `upstream rejected the request (${status})` };
  return { outcome: 'server', ...base, reason: `upstream ${status}` };
}

function defaultOverloaded(status: number, text: string): boolean {
  return status === 503 && /overload/i.test(text);
}

/** The longest wait passed on to clients: an upstream's "retry in a year" is not ours to repeat. */
const MAX_RETRY_AFTER_S = 3600;

/** `Retry-After` (seconds or an HTTP date) as whole seconds within [0, {@link MAX_RETRY_AFTER_S}]. */
export function retryAfter(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  let seconds = Number(value);
  if (!Number.isFinite(seconds)) {
    const date = Date.parse(value);
    if (Number.isNaN(date)) return undefined;
    seconds = (date - now) / 1000;
  }
  return Math.min(MAX_RETRY_AFTER_S, Math.max(0, Math.ceil(seconds)));
}
