/**
 * `/dashboard`: the admin dashboard's files (built by `npm run build` into `dist/dashboard`) and
 * its session routes, behind one set of security headers. Hashed assets are cached for a year;
 * every other page path answers `index.html` uncached, so the app routes on the client and a
 * new build is picked up on the next load. Nothing here is served from another origin.
 * @module
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import compression from 'compression';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { GatewayError, NotFoundError } from '../errors';
import { labelAs } from '../http/router';
import { fromRoot } from '../paths';
import { sessionRoutes, type SessionDeps } from './session-routes';
import type { DashboardSessions } from './sessions';

/** Where `npm run build` puts the app. */
export const DASHBOARD_DIR = fromRoot('dist', 'dashboard');

/** Scripts, styles, images and calls from this origin only; no inline script, no framing. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  next();
}

/** The dashboard router, mounted at `/dashboard` when the dashboard is on. */
export function dashboardRouter(deps: SessionDeps, sessions: DashboardSessions, dir = DASHBOARD_DIR): Router {
  const router = Router();
  const index = path.join(dir, 'index.html');
  // Gzip (or deflate) for what browsers accept it in: the app's files and the session answers.
  router.use(securityHeaders, compression());
  router.use('/api', labelAs('/dashboard/api/session'), sessionRoutes(deps, sessions), function noSuchRoute() {
    throw new NotFoundError();
  });
  router.use(labelAs('/dashboard'));
  // Anything under /assets that is not a file there (unknown, or a path climbing out with `..%2f`,
  // which serve-static refuses with a bare 403) is a 404: the envelope, and nothing about keys.
  router.use(
    '/assets',
    express.static(path.join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false }),
    function noSuchAsset() {
      throw new NotFoundError();
    },
  );
  router.use(express.static(dir, { index: false, maxAge: 0, redirect: false }));
  router.get('/{*page}', function dashboardPage(_req: Request, res: Response) {
    if (!existsSync(index)) throw new GatewayError(503, 'The dashboard is not built; run npm run build');
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
