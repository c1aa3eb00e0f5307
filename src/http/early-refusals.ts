/**
 * Answers given before a request reaches the application, in the gateway's envelope: a body
 * whose declared `Content-Length` is over the limit (413 at once, before a byte of it is read),
 * and the errors Node's HTTP parser reports through `clientError` (431 headers too large, 408
 * headers or body too slow, 400 malformed). Node would otherwise answer those with empty bodies,
 * or hold an oversized upload until its request timeout.
 * @module
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_MESSAGES } from '../errors';
import type { Config } from '../config';
import { FORM_OVERHEAD_BYTES } from '../files/multipart';
import { API_PREFIX } from './router';
import { RouteTemplates } from './route-templates';
import { PASSTHROUGH_ROUTES } from '../routes/passthrough';

/** The envelope for `status`, as a string. */
function envelope(status: number, metadata?: Record<string, unknown>): string {
  const message = STATUS_MESSAGES[status] ?? http.STATUS_CODES[status] ?? 'Error';
  return JSON.stringify({ error: metadata ? { code: status, message, metadata } : { code: status, message } });
}

/**
 * The largest body `req` may declare: the upload limit (plus form overhead) for multipart
 * bodies, the JSON body limit otherwise; null for passthrough routes while passthrough is on
 * (their bodies stream to the upstream, which sets its own limit).
 */
export function declaredLimit(config: Pick<Config, 'server' | 'files' | 'passthrough'>) {
  const routes = new RouteTemplates();
  if (config.passthrough.baseUrl) for (const [method, path] of PASSTHROUGH_ROUTES) routes.add(method, `${API_PREFIX}${path}`, path);
  return function limitOf(req: http.IncomingMessage): number | null {
    if (routes.match(req.method ?? '', (req.url ?? '').split('?')[0]!) !== undefined) return null;
    const type = req.headers['content-type'] ?? '';
    return /^multipart\//i.test(type) ? config.files.maxBytes + FORM_OVERHEAD_BYTES : config.server.bodyLimitBytes;
  };
}

/**
 * Answer 413 (and close the connection) when `req` declares a body larger than `limit`;
 * false when it does not, and the request goes on to the application.
 */
export function refuseOversized(req: http.IncomingMessage, res: http.ServerResponse, limit: number | null): boolean {
  const declared = Number(req.headers['content-length']);
  if (limit === null || !Number.isFinite(declared) || declared <= limit) return false;
  const body = envelope(413, { limit_bytes: limit, declared_bytes: declared });
  // The body is never read: close after answering rather than read megabytes to keep the connection.
  res.writeHead(413, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
  return true;
}

/** The status for an error of Node's HTTP parser or request timers. */
export function clientErrorStatus(err: NodeJS.ErrnoException): number {
  if (err.code === 'HPE_HEADER_OVERFLOW') return 431;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

/**
 * A `clientError` listener. A socket whose request is being answered (tracked in `busy`) is only
 * closed, since writing there would corrupt the response under way; a socket already gone is left.
 */
export function answerClientError(busy: WeakSet<Duplex>, counted: (status: number) => void) {
  return function onClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
    if (err.code === 'ECONNRESET' || !socket.writable || busy.has(socket)) {
      socket.destroy();
      return;
    }
    const status = clientErrorStatus(err);
    counted(status);
    const body = envelope(status, status === 400 ? { detail: 'malformed HTTP request' } : undefined);
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
