/**
 * The embeddings hot path without Express's request machinery. Express 5 spends about a tenth
 * of a millisecond per request before the first middleware runs and between layers (prototype
 * swaps of `req`/`res`, the router's layer matching, `req.url` trimming and restoring): measured
 * on the benchmark's machine, a handful of no-op layers cost more than the whole upstream call's
 * CPU. So one exact route (`POST /api/v1/embeddings`) is taken off the app's request entry and
 * run as one composed chain on the plain Node request and response; every other request,
 * including variants of that path Express would also match (`/API/V1/embeddings/`), goes through
 * Express as before, to the same handlers.
 *
 * The chain's middleware therefore uses only Node's members of `req`/`res` plus the gateway's
 * own (`req.ctx`, `req.valid`, `req.body`): no `req.path`, `res.json()` or other Express helper.
 * The whole embeddings test suite runs through this lane, so a handler that breaks the rule
 * fails there.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { NotFoundError } from '../errors';
import { compose } from './compose';

/** A route served by {@link serveHotRoute}. */
export interface HotRoute {
  method: 'POST';
  /** Exact path (a query string may follow). */
  path: string;
  /** The whole chain, context to handler, as one middleware (see `compose`). */
  chain: RequestHandler;
  /** Renders whatever the chain passes to `next(err)`; the app's own error handler. */
  onError: ErrorRequestHandler;
}

/** Express's request entry (`app(req, res)` calls it; mounting an app as a sub-app too). */
type Handle = (req: IncomingMessage, res: ServerResponse, callback?: (err?: unknown) => void) => void;

function ignore(): void {
  // the error handler answers; nothing runs after it
}

/**
 * Serve `route` ahead of `app`'s router: requests matching it exactly never enter Express.
 * Works wherever the app is used (`http.createServer(app)`, supertest, `outer.use(app)`).
 */
export function serveHotRoute(app: Express, route: HotRoute): void {
  if (!route.path.startsWith('/') || route.path.includes('?')) throw new Error(`hot route: bad path ${route.path}`);
  const target = app as unknown as { handle: Handle };
  const expressHandle = target.handle.bind(app);
  const withQuery = `${route.path}?`;
  const { onError } = route;
  // compose turns a throw or a rejected promise into next(err), as everywhere else.
  const chain = compose(route.chain);
  target.handle = function hotRouteHandle(req, res, callback) {
    const url = req.url ?? '';
    if (req.method !== route.method || (url !== route.path && !url.startsWith(withQuery))) {
      expressHandle(req, res, callback);
      return;
    }
    const request = req as Request;
    const response = res as Response;
    const done: NextFunction = (err?: unknown) => {
      // A chain that ends without answering (or leaves it with 'route') reached no handler: 404.
      const error = err === undefined || err === null || err === 'route' || err === 'router' ? new NotFoundError() : err;
      onError(error, request, response, ignore);
    };
    chain(request, response, done);
  };
}
