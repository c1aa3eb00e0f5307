/**
 * Run several middleware as one. Express 5's router pays for every layer it steps through —
 * a path match, prefix trimming and restoring of `req.url`, closures, debug calls — which on
 * the embeddings hot path came to a tenth of all allocation. Middleware that always run
 * together in a fixed order (the API prefix chain: label, auth, rate limit, …) are composed
 * here into one layer instead, with Express's own semantics: `next(err)` skips to the error
 * handlers, `next('route')`/`next('router')` leave the chain, and a rejected promise is an error.
 * @module
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** One middleware that runs `handlers` in order. */
export function compose(...handlers: RequestHandler[]): RequestHandler {
  if (handlers.length === 0) throw new Error('compose: at least one handler');
  return function composed(req: Request, res: Response, done: NextFunction): void {
    let index = 0;
    const next = (err?: unknown): void => {
      if (err !== undefined && err !== null) {
        done(err);
        return;
      }
      const handler = handlers[index++];
      if (!handler) {
        done();
        return;
      }
      try {
        const ret: unknown = handler(req, res, next);
        if (ret instanceof Promise) ret.then(undefined, (e: unknown) => done(e ?? new Error('rejected without a reason')));
      } catch (e) {
        done(e);
      }
    };
    next();
  };
}
