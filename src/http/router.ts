/**
 * A thin helper for registering API routes: every route gets its template label (for logs and
 * metrics) in front of its own middleware, so no route can forget it.
 * @module
 */
import { Router, type RequestHandler } from 'express';
import { routeLabel } from './request-context';

/** Path prefix of the public API. */
export const API_PREFIX = '/api/v1';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A router whose `add` labels each route with its full template. */
export interface ApiRouter {
  router: Router;
  add(method: Method, path: string, ...handlers: RequestHandler[]): void;
}

/** Create an {@link ApiRouter} mounted later under {@link API_PREFIX}. */
export function apiRouter(): ApiRouter {
  const router = Router();
  return {
    router,
    add(method, path, ...handlers) {
      router[method](path, routeLabel(API_PREFIX + path), ...handlers);
    },
  };
}
