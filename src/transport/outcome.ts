/**
 * What an upstream call came to, as a value: the outcomes the fallback runner decides on, the
 * request an adapter hands the transport, and the classification of an error status. Nothing
 * here does I/O, so the transport, the runner and the adapters all import it without a circle.
 * @module
 */
import type { BodyBytes } from '../providers/raw-json';

/** A ready-to-send upstream request (URL already joined to the provider's base URL). */
export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  /** JSON text, or its UTF-8 bytes (members of the client's body copied as sent: providers/upstream-json.ts). */
  body: string | Buffer;
  /** The largest whole 2xx body read (bytes); larger is a failed attempt. Default: the transport's bound. */
  maxBodyBytes?: number;
}

/** How an upstream attempt ended. */
export type UpstreamOutcome = 'ok' | 'timeout' | 'overloaded' | 'rate_limited' | 'server' | 'client' | 'network';

/** A failed attempt as a value. */
export interface UpstreamFailure {
  outcome: Exclude<UpstreamOutcome, 'ok'>;
  /** HTTP status when the upstream answered; null for timeouts and network failures. */
  status: number | null;
  /** Seconds from the upstream's `Retry-After`, when sent. */
  retryAfterSeconds?: number;
  /** Short, secret-free reason for logs (never the upstream body). */
  reason: string;
  /** What the adapter read from the error body for the client (a content filter's verdict), when it did. */
  detail?: UpstreamErrorDetail;
  /**
   * The model cannot serve yet (Bedrock's `ModelNotReadyException`): another provider is tried,
   * and when none answers the client gets a 503, not a rate limit, as waiting a moment will not do.
   */
  unavailable?: true;
}

/** An upstream answer's headers (lower-case names), as undici hands them. */
export type UpstreamHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * A secret-free reading of an upstream error body, which the final error passes on: a code the
 * gateway knows and small, bounded facts the adapter picked out (never the body's text).
 */
export interface UpstreamErrorDetail {
  /** `content_filter`: the provider's content filter refused the prompt. */
  code: 'content_filter';
  /** The facts, e.g. each filter category with its verdict; the adapter bounds their size. */
  data: Record<string, unknown>;
}

/** A finished whole-body call as a value: the body when ok, else the failure's kind. */
export type UpstreamResult =
  | {
      outcome: 'ok';
      status: number;
      /** The raw body bytes, as the chunks they arrived in; the adapter parses them (invalid → a `server` failure). */
      body: BodyBytes;
      /** Time until the whole body had arrived (the upstream's share of the request). */
      elapsedMs: number;
    }
  | UpstreamFailure;

/** What the transport needs of an adapter: its readings of an error body, if it has its own. */
export interface OverloadSignal {
  /** Whether an error body (or its headers: Bedrock names errors in one) signals overload (→ 529) although its status is not 529. */
  isOverloaded?(status: number, bodyText: string, headers?: UpstreamHeaders): boolean;
  /** Whether an error says the model cannot serve yet ({@link UpstreamFailure.unavailable}). */
  isUnavailable?(status: number, bodyText: string, headers?: UpstreamHeaders): boolean;
  /**
   * A refusal the client should see (a content filter's verdict) read from an error body; null
   * when the body says nothing the gateway passes on. A detail makes the failure `client`: the
   * request itself was refused, so no other provider is tried (it would bill twice).
   */
  errorDetail?(status: number, bodyText: string): UpstreamErrorDetail | null;
}

/**
 * An upstream error status → outcome. 400/413/422, or a body the adapter reads as a refusal
 * ({@link OverloadSignal.errorDetail}), mean the request itself is bad (returned to the client, no fallback); 401/403/404 and other 4xx mean the provider is misconfigured or does not
 * serve the model (a provider-side failure worth falling back from).
 */
export function classifyStatus(
  status: number,
  text: string,
  retryAfterSeconds: number | undefined,
  adapter: OverloadSignal,
  headers?: UpstreamHeaders,
): UpstreamFailure {
  const base = { status, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
  if (adapter.isUnavailable?.(status, text, headers))
    return { outcome: 'server', ...base, reason: 'upstream model not ready', unavailable: true };
  if (status === 429) return { outcome: 'rate_limited', ...base, reason: 'upstream rate limit' };
  const detail = adapter.errorDetail?.(status, text) ?? null;
  if (detail) return { outcome: 'client', ...base, reason: `upstream refused the request (${detail.code})`, detail };
  if (
    status === 529 ||
    (adapter.isOverloaded ? adapter.isOverloaded(status, text, headers) : defaultOverloaded(status, text))
  ) {
    return { outcome: 'overloaded', ...base, reason: 'upstream overloaded' };
  }
  if (status === 408 || status === 504) return { outcome: 'timeout', ...base, reason: `upstream ${status}` };
  if (status === 400 || status === 413 || status === 422)
    return { outcome: 'client', ...base, reason: `upstream rejected the request (${status})` };
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
