/**
 * The one place where anything thrown becomes an HTTP response: the door's envelope
 * (`envelopes.ts`; the hosted service's `{error:{code,message,metadata?}}` with `code` = status). Body-parser failures become their
 * 4xx; anything unexpected is logged with its stack and answered as a bare 500, so no stack
 * trace or internal detail ever reaches a client.
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import {
  GatewayError,
  NotFoundError,
  PayloadTooLargeError,
  STATUS_MESSAGES,
  ServiceUnavailableError,
  invalidJsonBody,
  undecodableBody,
  unreadableBody,
} from '../errors';
import type { Logger } from '../observability/logger';
import { errorEnvelope } from './envelopes';

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
  code?: unknown;
}

/** zlib's and brotli's error codes: body-parser passes a decompression failure on as a plain 400 with them. */
const DECOMPRESSION_CODE = /^(?:Z_|ERR__ERROR_|ZSTD_)/;

/** Map errors from express/body-parser to our hierarchy; null when it is not one of theirs. */
function fromFramework(err: unknown): GatewayError | null {
  const e = err as BodyParserError;
  switch (e?.type) {
    case 'entity.parse.failed':
      return invalidJsonBody();
    case 'entity.too.large':
      return new PayloadTooLargeError(e.limit);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new GatewayError(415, STATUS_MESSAGES[415]);
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return unreadableBody();
    case undefined: // not one of http-errors' (zlib's errors carry only a code)
    default:
      if (typeof e?.code === 'string' && DECOMPRESSION_CODE.test(e.code)) return undecodableBody();
      // Other http-errors raised by express itself: a malformed %-escape in a path parameter
      // (400 from the router) names no resource, so it is a 404 like an unknown id.
      if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) {
        return e.status === 400 ? new NotFoundError() : new GatewayError(e.status);
      }
      return null;
  }
}

/** Node and Postgres error codes that mean "the database is unreachable", not "a bug". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** A dependency outage surfacing as a raw driver error becomes 503, so clients retry. */
function fromOutage(err: unknown): GatewayError | null {
  const e = err as { code?: string; message?: string };
  const code = typeof e?.code === 'string' ? e.code : '';
  const outage =
    UNAVAILABLE_CODES.has(code) ||
    code.startsWith('08') || // Postgres connection_exception class
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
      e?.message ?? '',
    );
  return outage ? new ServiceUnavailableError({ reason: 'dependency_unavailable' }, 1) : null;
}

/** Write the envelope for a GatewayError (plain Node response calls, so it works on any response). */
export function sendError(res: ServerResponse, err: GatewayError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
  if (err.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.ceil(err.retryAfterSeconds)));
  const json = errorEnvelope(res, err);
  res.statusCode = err.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

/** Build the final error middleware. */
export function errorHandler(logger: Logger) {
  return function errorHandlerMiddleware(err: unknown, req: Request, res: Response, _next: NextFunction): void {
    let gatewayError = err instanceof GatewayError ? err : (fromFramework(err) ?? fromOutage(err));
    if (!gatewayError) {
      // The logger's format turns the Error into its name, message and stack.
      logger.error('unhandled error', { request_id: req.ctx?.requestId, route: req.ctx?.route, error: err });
      gatewayError = new GatewayError(500);
    } else if (gatewayError.status >= 500) {
      const cause = gatewayError.cause === undefined ? {} : { cause: gatewayError.cause };
      logger.warn('request failed', {
        request_id: req.ctx?.requestId,
        route: req.ctx?.route,
        status: gatewayError.status,
        message: gatewayError.message,
        metadata: gatewayError.metadata,
        ...cause,
      });
    }
    sendError(res, gatewayError);
  };
}

/** Terminal middleware for routes nobody handles (src/http/not-found.ts). */
export { notFound } from './not-found';
