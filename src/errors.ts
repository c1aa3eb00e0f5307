/**
 * The one error hierarchy of the gateway. Handlers and middleware throw these; only
 * `http/error-handler.ts` turns them into the wire envelope `{error:{code,message,metadata}}`,
 * so no handler ever builds an error body (the Portkey "hard-coded 500" class of bug).
 * @module
 */

/** Canonical message texts of the spec's Errors table, keyed by status. */
export const STATUS_MESSAGES: Readonly<Record<number, string>> = Object.freeze({
  400: 'Invalid request parameters',
  401: 'Missing Authentication header',
  402: 'Insufficient credits. Add more using https://openrouter.ai/credits',
  403: 'Only management keys can perform this operation',
  404: 'Resource not found',
  408: 'Operation timed out. Please try again later.',
  409: 'Conflict',
  413: 'Request payload too large',
  415: 'Unsupported media type',
  429: 'Rate limit exceeded',
  431: 'Request header fields too large',
  500: 'Internal Server Error',
  502: 'Provider returned error',
  503: 'Service temporarily unavailable',
  524: 'Request timed out. Please try again later.',
  529: 'Provider returned error',
});

/** Extra, optional parts of an error: machine-readable details and response headers. */
export interface GatewayErrorOptions {
  /** Rendered as `error.metadata`; must never contain secrets. */
  metadata?: Record<string, unknown>;
  /** Seconds; rendered as the `Retry-After` header. */
  retryAfterSeconds?: number;
  /** Extra response headers (e.g. `WWW-Authenticate`). */
  headers?: Record<string, string>;
  /** Rendered as `error.availability`: why a model cannot be served (reference notes §0.1). */
  availability?: Availability;
  cause?: unknown;
}

/**
 * The hosted service's model-availability detail: whether retrying can help, and which of the
 * request's own constraints (if any) excluded every endpoint.
 */
export interface Availability {
  code: 'constraint_filtered' | 'no_endpoints' | 'temporarily_unavailable';
  retryable: boolean;
  retry_after?: number;
  requested_models: string[];
  constraint?: { field: string; detail: string };
  affected_providers?: string[];
}

/**
 * Base class: an HTTP status plus a client-safe message. `code` always equals `status`
 * because the spec's envelope says so.
 */
export class GatewayError extends Error {
  readonly status: number;
  readonly metadata: Record<string, unknown> | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly availability: Availability | undefined;

  constructor(status: number, message?: string, options: GatewayErrorOptions = {}) {
    super(message ?? STATUS_MESSAGES[status] ?? 'Error', { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.metadata = options.metadata;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers;
    this.availability = options.availability;
  }
}

/** One problem found by request validation, as listed in `metadata.errors`. */
export interface ValidationIssue {
  /** Where: `body.name`, `query.limit`, `params.hash`. */
  path: string;
  message: string;
}

/** Problems listed in one 400; the rest are only counted, so an answer stays small whatever the input. */
export const MAX_LISTED_ISSUES = 20;
/** Longest path or message of one listed problem (a path can echo a client's 100 KB property name). */
const MAX_ISSUE_TEXT = 200;

const clip = (text: string) => (text.length > MAX_ISSUE_TEXT ? `${text.slice(0, MAX_ISSUE_TEXT)}…` : text);

/**
 * 400 with the spec's text, always `Invalid request parameters`: the individual problems go in
 * `metadata.errors` (the first {@link MAX_LISTED_ISSUES}, each clipped; `metadata.more_errors`
 * counts the rest), and `detail`, when given, in `metadata.detail` (a sentence saying what to do).
 */
export class ValidationError extends GatewayError {
  readonly issues: ValidationIssue[];
  constructor(issues: ValidationIssue[], detail?: string, extra: Record<string, unknown> = {}) {
    const listed = issues.slice(0, MAX_LISTED_ISSUES).map((i) => ({ path: clip(i.path), message: clip(i.message) }));
    const metadata: Record<string, unknown> = { errors: listed };
    if (issues.length > listed.length) metadata.more_errors = issues.length - listed.length;
    if (detail !== undefined) metadata.detail = detail;
    super(400, STATUS_MESSAGES[400], { metadata: { ...metadata, ...extra } });
    this.issues = listed;
  }
}

/** 400 for a request body that is not JSON (body-parser's `entity.parse.failed`, or the hot route's reader). */
export function invalidJsonBody(): ValidationError {
  return new ValidationError([{ path: 'body', message: 'is not valid JSON' }]);
}

/** 400 for a body that does not decode as its `Content-Encoding` says (a `gzip` body that is not gzip). */
export function undecodableBody(): ValidationError {
  return new ValidationError([
    { path: 'body', message: 'does not decode as its Content-Encoding says (gzip, deflate or br)' },
  ]);
}

/** 400 for a request body that could not be read to its end (the client went away, a wrong length). */
export function unreadableBody(): ValidationError {
  return new ValidationError([{ path: 'body', message: 'could not be read' }]);
}

/** 401: no, unknown, disabled or expired credentials. */
export class AuthenticationError extends GatewayError {
  constructor(message = STATUS_MESSAGES[401]) {
    super(401, message, { headers: { 'WWW-Authenticate': 'Bearer' } });
  }
}

/** 402: a budget or key spending limit would be exceeded. */
export class PaymentRequiredError extends GatewayError {
  constructor(message = STATUS_MESSAGES[402], metadata?: Record<string, unknown>) {
    super(402, message, { metadata });
  }
}

/** 403: the key is of the wrong kind for the route. */
export class ForbiddenError extends GatewayError {
  constructor(message = STATUS_MESSAGES[403]) {
    super(403, message);
  }
}

/** 404: the resource does not exist *or belongs to another tenant* (never reveal which). */
export class NotFoundError extends GatewayError {
  constructor(message = STATUS_MESSAGES[404], metadata?: Record<string, unknown>) {
    super(404, message, { metadata });
  }
}

/**
 * 404 for a request that can never succeed as asked: the model has no endpoint for its input, its
 * own `provider` constraints exclude every endpoint, or no provider of it has a key until an
 * operator sets one. Not retryable, so clients do not retry.
 * @param reason - what to do about it, appended to the spec's message (default: the constraint's detail, in metadata only)
 */
export class NoEndpointsError extends GatewayError {
  constructor(availability: Availability, reason?: { text: string; metadata: Record<string, unknown> }) {
    super(404, reason ? `${STATUS_MESSAGES[404]}: ${reason.text}` : STATUS_MESSAGES[404], {
      availability,
      metadata: reason ? { reason: reason.text, ...reason.metadata } : { reason: availability.constraint?.detail },
    });
  }
}

/** 408: a local operation (e.g. analytics query) or a client (a too-slow upload) ran out of time. */
export class RequestTimeoutError extends GatewayError {
  constructor(metadata?: Record<string, unknown>) {
    super(408, STATUS_MESSAGES[408], { metadata });
  }
}

/** 409: the request conflicts with current state (e.g. a duplicate slug). */
export class ConflictError extends GatewayError {
  constructor(message: string, metadata?: Record<string, unknown>) {
    super(409, message, { metadata });
  }
}

/** 413: body or upload over the configured limit. */
export class PayloadTooLargeError extends GatewayError {
  constructor(limitBytes?: number) {
    super(413, STATUS_MESSAGES[413], limitBytes === undefined ? {} : { metadata: { limit_bytes: limitBytes } });
  }
}

/** 429 with `Retry-After`; `headers` for limits of our own (the hosted service's `X-RateLimit-*`). */
export class RateLimitError extends GatewayError {
  constructor(retryAfterSeconds: number, metadata?: Record<string, unknown>, headers?: Record<string, string>) {
    super(429, STATUS_MESSAGES[429], { retryAfterSeconds, metadata, headers });
  }
}

/** 503: a dependency this request needs (Redis, database, every upstream) is unavailable. */
export class ServiceUnavailableError extends GatewayError {
  constructor(
    metadata?: Record<string, unknown>,
    retryAfterSeconds?: number,
    availability?: Availability,
    cause?: unknown,
  ) {
    super(503, STATUS_MESSAGES[503], { metadata, retryAfterSeconds, availability, cause });
  }
}

/** 502: the upstream answered with an error or an unusable body. */
export class UpstreamError extends GatewayError {
  constructor(metadata?: Record<string, unknown>) {
    super(502, STATUS_MESSAGES[502], { metadata });
  }
}

/** 524: the upstream did not answer in time. */
export class UpstreamTimeoutError extends GatewayError {
  constructor(metadata?: Record<string, unknown>) {
    super(524, STATUS_MESSAGES[524], { metadata });
  }
}

/** 529: the upstream said it is overloaded. */
export class UpstreamOverloadedError extends GatewayError {
  constructor(metadata?: Record<string, unknown>, retryAfterSeconds?: number) {
    super(529, STATUS_MESSAGES[529], { metadata, retryAfterSeconds });
  }
}
