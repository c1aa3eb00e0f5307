/**
 * First middleware: request id (`X-Request-Id` accepted when sane, else generated, and echoed),
 * start time, and the empty context later middleware fill in.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Build the request-context middleware. */
export function requestContext() {
  return function requestContextMiddleware(req: Request, res: Response, next: NextFunction): void {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
    req.ctx = { requestId, startedAt: process.hrtime.bigint(), route: 'unmatched' };
    req.valid = {};
    res.setHeader('X-Request-Id', requestId);
    next();
  };
}
