/**
 * Passthrough routes: OpenAI-compatible endpoints Switchyard does not serve itself, forwarded
 * to `passthrough.baseUrl` after authentication and the per-key rate limit (inference keys
 * only). Mounted before the JSON body parser, so request bodies stream to the upstream
 * untouched. Off unless configured: then these paths fall through to the 404 envelope.
 * @module
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppDeps } from '../deps';
import { requireInferenceKey } from '../auth/authenticate';
import { apiRouter } from '../http/router';
import { createPassthroughProxy } from '../passthrough/proxy';

/** The forwarded routes (method, path under `/api/v1`). */
export const PASSTHROUGH_ROUTES: ReadonlyArray<readonly ['get' | 'post', string]> = [
  ['post', '/completions'],
  ['post', '/audio/*operation'],
  ['post', '/images/*operation'],
];

function skip(_req: Request, _res: Response, next: NextFunction): void {
  next();
}

/**
 * The passthrough routes as two middleware for the API chain: `label` goes in front of
 * authentication (so a 401 or 429 on a proxied route is counted under its template, not
 * `unmatched`), `proxy` after the rate limit. Both are no-ops when `passthrough.baseUrl` is not
 * set (the paths are then unknown: 404).
 */
export function passthroughRoutes(deps: Pick<AppDeps, 'config' | 'logger' | 'tracing'>): {
  label: RequestHandler;
  proxy: RequestHandler;
} {
  const { baseUrl, apiKey, timeoutMs } = deps.config.passthrough;
  if (!baseUrl) return { label: skip, proxy: skip };
  const proxy = createPassthroughProxy({ baseUrl, apiKey, timeoutMs }, deps.logger, deps.tracing);
  const routes = apiRouter();
  for (const [method, path] of PASSTHROUGH_ROUTES) routes.add(method, path, requireInferenceKey(), proxy);
  return { label: routes.label, proxy: routes.router };
}
