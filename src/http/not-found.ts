/**
 * The answer to a request no route serves: the spec's 404 envelope, whose message names the
 * method and path asked for and, when it can, what the client probably meant: the methods that
 * path does answer, the same path under `/api/v1`, or the door that would serve it (Anthropic's
 * Messages API is not served, nor are stored responses of the stateless Responses API; the
 * passthrough routes need the passthrough configured). A bare "Resource not found" left a newcomer guessing which part of the
 * URL was wrong.
 * @module
 */
import type { NextFunction, Request, Response } from 'express';
import { NotFoundError, STATUS_MESSAGES } from '../errors';
import { API_PREFIX, type ApiRoute } from './router';
import { pathMatcher, type PathTest } from './route-templates';

/** Longest path echoed back (a client can send a URL of many kilobytes). */
export const MAX_ECHOED_PATH = 200;

/** What {@link notFound} knows of the gateway's routes. */
export interface NotFoundOptions {
  /** The API routes (full templates), to name the methods a path answers and the prefix a path lacks. */
  routes?: readonly ApiRoute[];
  /** The passthrough routes (method, full template) when the passthrough is off, to say how to turn it on. */
  passthroughOff?: readonly ApiRoute[];
}

const CHAT = `POST ${API_PREFIX}/chat/completions`;

/** APIs clients often try that this gateway does not serve, and what to use instead. */
const DOORS: ReadonlyArray<{ test: RegExp; hint: string; use?: string }> = [
  {
    // The Messages door itself is served; a path without `/api/v1` is a base URL set wrong.
    test: /^(?!\/api\/v1\/)(?:\/api)?(?:\/v1)?\/messages(?:\/.*)?$/i,
    hint: `Anthropic's Messages API is POST ${API_PREFIX}/messages: set ANTHROPIC_BASE_URL to the gateway's /api (http://<host>:<port>/api)`,
  },
  {
    // POST /responses is served (a base URL without /api gets the prefix hint below); a stored response is not.
    test: /^(?:\/api)?(?:\/v1)?\/responses\/.+$/i,
    hint: `the gateway is stateless and keeps no responses: send the whole conversation to POST ${API_PREFIX}/responses`,
    use: `POST ${API_PREFIX}/responses`,
  },
];

/** `path` as echoed: without a query, at most {@link MAX_ECHOED_PATH} characters. */
function echoed(url: string): string {
  const path = url.split('?', 1)[0] as string;
  return path.length > MAX_ECHOED_PATH ? `${path.slice(0, MAX_ECHOED_PATH)}…` : path;
}

interface Compiled {
  route: ApiRoute;
  test: PathTest;
}

/**
 * Terminal middleware for requests nobody handles: a {@link NotFoundError} saying so.
 * `metadata` repeats the method, the (capped) path and the hint, for programs.
 */
export function notFound(options: NotFoundOptions = {}) {
  const compile = (routes: readonly ApiRoute[] = []): Compiled[] =>
    routes.map((route) => ({ route, test: pathMatcher(route.template) }));
  let routes: Compiled[] | undefined;
  let passthrough: Compiled[] | undefined;
  return function notFoundMiddleware(req: Request, _res: Response, next: NextFunction): void {
    // Compiled at the first miss: every route is registered by then.
    routes ??= compile(options.routes);
    passthrough ??= compile(options.passthroughOff);
    const path = req.originalUrl.split('?', 1)[0] as string;
    const hint = hintFor(req.method, path, routes, passthrough);
    const shown = echoed(path);
    const reason = `no route for ${req.method} ${shown}${hint ? `; ${hint.text}` : ''}`;
    next(
      new NotFoundError(`${STATUS_MESSAGES[404]}: ${reason}`, {
        method: req.method,
        path: shown,
        reason,
        ...hint?.metadata,
      }),
    );
  };
}

/** What the client probably meant by `method path`, if anything. */
function hintFor(
  method: string,
  path: string,
  routes: readonly Compiled[],
  passthrough: readonly Compiled[],
): { text: string; metadata: Record<string, unknown> } | null {
  const methods = [...new Set(routes.filter((r) => r.test(path)).map((r) => r.route.method.toUpperCase()))].filter(
    (m) => m !== method,
  );
  if (methods.length > 0)
    return { text: `${echoed(path)} answers ${methods.join(', ')}`, metadata: { allowed_methods: methods } };
  if (passthrough.some((r) => r.test(path))) {
    return {
      text: 'this route is forwarded by the passthrough, which is off: set PASSTHROUGH_BASE_URL to serve it',
      metadata: { set: 'PASSTHROUGH_BASE_URL' },
    };
  }
  for (const door of DOORS) if (door.test.test(path)) return { text: door.hint, metadata: { use: door.use ?? CHAT } };
  // The API is mounted under /api/v1: `/v1/chat/completions` or `/keys` lack (part of) the prefix.
  for (const candidate of [`/api${path}`, `${API_PREFIX}${path}`]) {
    const same = routes.find(
      (r) => r.route.method.toUpperCase() === (method === 'HEAD' ? 'GET' : method) && r.test(candidate),
    );
    if (same)
      return {
        text: `the API is under ${API_PREFIX}: ${method} ${echoed(candidate)}`,
        metadata: { use: `${method} ${echoed(candidate)}` },
      };
  }
  return null;
}
