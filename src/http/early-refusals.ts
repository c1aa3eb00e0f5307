/**
 * Answers given before a request reaches the application, in the door's envelope (`envelopes.ts`): a body
 * whose declared `Content-Length` is over the limit (413 at once, before a byte of it is read);
 * an HTTP/1.1 request without `Host` (400), a transfer coding other than `chunked` (415) and an
 * `Expect` other than `100-continue` (417), which Node would answer with empty bodies (or, for
 * `Transfer-Encoding: gzip`, not at all); and the errors Node's HTTP parser reports through
 * `clientError` (431 headers too large, 408 headers or body too slow, 400 malformed, a bad chunk
 * included). Node would otherwise answer those with empty bodies or close the connection silently,
 * or hold an oversized upload until its request timeout.
 * @module
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayError, STATUS_MESSAGES } from '../errors';
import { errorEnvelope, hostedEnvelope } from './envelopes';
import type { Config } from '../config';
import { FORM_OVERHEAD_BYTES } from '../files/multipart';
import { API_PREFIX } from './router';
import { RouteTemplates } from './route-templates';
import { jsonLimitOf } from './body-limits';
import { PASSTHROUGH_ROUTES } from '../routes/passthrough';

/** The error for `status`. */
function refusal(status: number, metadata?: Record<string, unknown>): GatewayError {
  return new GatewayError(status, STATUS_MESSAGES[status] ?? http.STATUS_CODES[status] ?? 'Error', { metadata });
}

/**
 * The largest body `req` may declare: the upload limit (plus form overhead) for multipart
 * bodies, the route's JSON body limit otherwise (large on the inference routes); null for passthrough routes while passthrough is on
 * (their bodies stream to the upstream, which sets its own limit).
 */
export function declaredLimit(config: Pick<Config, 'server' | 'files' | 'passthrough'>) {
  const routes = new RouteTemplates();
  if (config.passthrough.baseUrl)
    for (const [method, path] of PASSTHROUGH_ROUTES) routes.add(method, `${API_PREFIX}${path}`, path);
  return function limitOf(req: http.IncomingMessage): number | null {
    if (routes.match(req.method ?? '', (req.url ?? '').split('?')[0]!) !== undefined) return null;
    const type = req.headers['content-type'] ?? '';
    if (/^multipart\//i.test(type)) return config.files.maxBytes + FORM_OVERHEAD_BYTES;
    const path = (req.url ?? '').split('?')[0]!;
    return jsonLimitOf(config.server, path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length) : path);
  };
}

/**
 * Answer `status` with the envelope and close the connection: the request's body is not read (it
 * may be huge, or framed in a way we cannot read), so the connection cannot carry another request.
 */
function refuse(res: http.ServerResponse, status: number, metadata?: Record<string, unknown>): void {
  const body = errorEnvelope(res, refusal(status, metadata));
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  });
  res.end(body);
}

/**
 * Answer 413 (and close the connection) when `req` declares a body larger than `limit`;
 * false when it does not, and the request goes on to the application.
 */
export function refuseOversized(req: http.IncomingMessage, res: http.ServerResponse, limit: number | null): boolean {
  const declared = Number(req.headers['content-length']);
  if (limit === null || !Number.isFinite(declared) || declared <= limit) return false;
  refuse(res, 413, { limit_bytes: limit, declared_bytes: declared });
  return true;
}

/**
 * Refuse a request the application must not see: an HTTP/1.1 request
 * without `Host` (400, RFC 9112 §3.2; Node's own check is off so that the answer has the envelope)
 * or a transfer coding other than `chunked` (415: Node would pass a `gzip, chunked` body on still
 * compressed, and cut a `gzip` one off with nothing said).
 * @returns true when `req` was answered
 */
export function refuseUnreadable(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (req.httpVersion === '1.1' && req.headers.host === undefined) {
    refuse(res, 400, { detail: 'an HTTP/1.1 request needs a Host header' });
    return true;
  }
  const codings = req.headers['transfer-encoding'];
  if (codings !== undefined && codings.split(',').some((c) => c.trim().toLowerCase() !== 'chunked')) {
    refuse(res, 415, {
      detail: 'Transfer-Encoding: only chunked is supported (compress the body with Content-Encoding instead)',
    });
    return true;
  }
  return false;
}

/** A `checkExpectation` listener: an `Expect` other than `100-continue` is a 417 with the envelope. */
export function answerUnmetExpectation(counted: (status: number) => void) {
  return function onCheckExpectation(_req: http.IncomingMessage, res: http.ServerResponse): void {
    counted(417);
    refuse(res, 417, { detail: 'only Expect: 100-continue is supported' });
  };
}

/** The status for an error of Node's HTTP parser or request timers. */
export function clientErrorStatus(err: NodeJS.ErrnoException): number {
  if (err.code === 'HPE_HEADER_OVERFLOW') return 431;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

/** What the client is told about a malformed request: the parser's reason (llhttp's fixed text, never request bytes). */
function malformedDetail(err: NodeJS.ErrnoException): string {
  const reason = err.code?.startsWith('HPE_') ? err.message.replace(/^Parse Error: /, '') : '';
  return reason ? `malformed HTTP request: ${reason}` : 'malformed HTTP request';
}

/**
 * A `clientError` listener. `inFlight` maps a socket to the response of the request it is
 * reading, if any. A request whose head was fine but whose body is not (a bad chunk) is answered
 * through that response, as long as nothing of it was sent yet; a response already finished is
 * flushed, then the socket closed; one under way is cut off, since writing there would corrupt
 * it. A socket already gone is left.
 */
export function answerClientError(inFlight: WeakMap<Duplex, http.ServerResponse>, counted: (status: number) => void) {
  return function onClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
    const res = inFlight.get(socket);
    if (err.code === 'ECONNRESET' || !socket.writable || (res?.headersSent && !res.writableEnded)) {
      socket.destroy();
      return;
    }
    if (res?.headersSent) {
      socket.end();
      return;
    }
    const status = clientErrorStatus(err);
    counted(status);
    const metadata = status === 400 ? { detail: malformedDetail(err) } : undefined;
    if (res) {
      refuse(res, status, metadata);
      return;
    }
    const body = hostedEnvelope(refusal(status, metadata)); // no request was read: no door is known
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
