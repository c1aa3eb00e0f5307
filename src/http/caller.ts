/**
 * The caller's context for a usage record, read from the request and its headers once, the same
 * way for every priced route.
 * @module
 */
import type { Request } from 'express';
import { currentKey } from '../auth/authenticate';
import type { CallerContext } from '../inference/caller';

/** A request header as one bounded string, or null when absent or repeated. */
export function header(req: Request, name: string): string | null {
  const v = req.headers[name];
  return typeof v === 'string' && v !== '' ? v.slice(0, 512) : null;
}

/** The caller's context for the usage record, from the request and its headers. */
export function callerOf(req: Request): CallerContext {
  return {
    key: currentKey(req),
    requestId: req.ctx.requestId,
    startedAt: req.ctx.startedAt,
    sessionHeader: header(req, 'x-session-id'),
    userAgent: header(req, 'user-agent'),
    httpReferer: header(req, 'http-referer'),
    appTitle: header(req, 'x-openrouter-title') ?? header(req, 'x-title'),
    origin: header(req, 'origin'),
    trace: req.ctx.trace,
  };
}
