/**
 * A thin helper for registering API routes: every route added is known by its template, and
 * `label` — mounted once in front of the routes' chain — labels each request with the template
 * it will reach (for logs and metrics), before authentication and the rate limit can answer it.
 * One label per request, so no route can forget it and none is labelled twice.
 * @module
 */
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { RouteTemplates } from './route-templates';

/** Path prefix of the public API. */
export const API_PREFIX = '/api/v1';

/** HTTP methods API routes use (Express method names). */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One registered API route. */
export interface ApiRoute {
  method: Method;
  /** Full template, e.g. `/api/v1/keys/:hash`. */
  template: string;
}

/** A router whose `add` labels each route with its full template. */
export interface ApiRouter {
  router: Router;
  add(method: Method, path: string, ...handlers: RequestHandler[]): void;
  /**
   * Middleware mounted at {@link API_PREFIX} in front of `authenticate`: labels the request
   * with the template of the route it will reach (if any), so 401/403/429 answers given before
   * the route runs are counted under it. Sees routes added later too.
   */
  label: RequestHandler;
  /** Every route added so far, in order (exposed as `app.locals.apiRoutes` for tests/tooling). Mount `label` before `router`. */
  routes: readonly ApiRoute[];
}

/** Create an {@link ApiRouter} mounted later under {@link API_PREFIX}. */
export function apiRouter(): ApiRouter {
  const router = Router();
  const templates = new RouteTemplates();
  const routes: ApiRoute[] = [];
  return {
    router,
    routes,
    add(method, path, ...handlers) {
      const template = API_PREFIX + path;
      templates.add(method, path, template);
      routes.push({ method, template });
      router[method](path, ...handlers);
    },
    label: function labelRoute(req: Request, _res: Response, next: NextFunction): void {
      const template = templates.match(req.method, req.path);
      if (template) req.ctx.route = template;
      next();
    },
  };
}

/** Middleware labelling every request it sees with `template` (a route served outside the router). */
export function labelAs(template: string): RequestHandler {
  return function labelFixedRoute(req: Request, _res: Response, next: NextFunction): void {
    req.ctx.route = template;
    next();
  };
}
