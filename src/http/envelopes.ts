/**
 * The error envelope of each door. Every route answers the hosted service's
 * `{error: {code, message, metadata?}}` but Anthropic's Messages door, whose clients (Claude Code,
 * the Anthropic SDKs) read `{type: "error", error: {type, message}}`. The door is told by the
 * request's path, so errors raised before any route runs (body too large, bad JSON, auth, rate
 * limits) are in the door's envelope too.
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../errors';

/** Anthropic's error type for each status (its documented table; other 4xx are `invalid_request_error`). */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status < 500 ? 'invalid_request_error' : 'api_error';
  }
}

/** Whether `path` is one of the Messages door's (`/api/v1/messages`, `/api/v1/messages/count_tokens`). */
export function isMessagesPath(path: string): boolean {
  return /^\/api\/v1\/messages(?:[/?]|$)/.test(path);
}

/** The JSON of `err` in the hosted service's envelope. */
export function hostedEnvelope(err: GatewayError): string {
  const body: { code: number; message: string; metadata?: Record<string, unknown>; availability?: unknown } = {
    code: err.status,
    message: err.message,
  };
  if (err.metadata) body.metadata = err.metadata;
  if (err.availability) body.availability = err.availability;
  return JSON.stringify({ error: body });
}

/** The JSON of `err` in Anthropic's envelope; the gateway's details stay under `error.metadata`. */
function anthropicEnvelope(err: GatewayError): string {
  const error: { type: string; message: string; metadata?: Record<string, unknown> } = {
    type: anthropicErrorType(err.status),
    message: err.message,
  };
  if (err.metadata) error.metadata = err.metadata;
  return JSON.stringify({ type: 'error', error });
}

/** The error body for `err` on the request `res` answers. */
export function errorEnvelope(res: ServerResponse, err: GatewayError): string {
  const url = (res as { req?: { url?: string } }).req?.url ?? '';
  return isMessagesPath(url) ? anthropicEnvelope(err) : hostedEnvelope(err);
}
