/**
 * A thin helper for registering API routes: every route gets its template label (for logs and
 * metrics) in front of its own middleware, so no route can forget it; and the same templates
 * label requests early (`label`), before authentication and the rate limit answer them.
 * @module
 */
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { routeLabel } from './request-context';
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
  /** Every route added so far, in order (exposed as `app.locals.apiRoutes` for tests/tooling). */
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
      router[method](path, routeLabel(template), ...handlers);
    },
    label: function labelRoute(req: Request, _res: Response, next: NextFunction): void {
      const template = templates.match(req.method, req.path);
      if (template) req.ctx.route = template;
      next();
    },
  };
}
