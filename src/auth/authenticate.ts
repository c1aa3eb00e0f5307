/**
 * Bearer authentication: `Authorization: Bearer <key>` (or, without that header, Anthropic's
 * `x-api-key: <key>`) → SHA-256 → cached key record. The
 * secret itself is hashed immediately and never stored, logged or echoed. A request with no
 * `Authorization` header may instead carry a dashboard session cookie (src/dashboard/sessions.ts):
 * it resolves to the management key the session was opened with, and a state-changing call must
 * also carry the session's CSRF token.
 * @module
 */
import type { NextFunction, Request, Response } from 'express';
import { AuthenticationError, ForbiddenError } from '../errors';
import { hashSecret } from '../keys/secrets';
import type { Metrics } from '../observability/metrics';
import type { KeyCache } from './key-cache';
import type { ApiKeyRecord } from '../keys/types';
import { csrfRefusal, type DashboardSessions } from '../dashboard/sessions';
import { anyPath } from '../http/route-templates';

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * `key` when it may authenticate at `nowMs`; else throws why (null: no such key), counted in the
 * auth-failure metric. Shared by bearer authentication and the dashboard's sign-in.
 */
export function admittedKey(key: ApiKeyRecord | null, metrics: Metrics, nowMs: number): ApiKeyRecord {
  const reason = !key
    ? 'unknown'
    : key.disabled
      ? 'disabled'
      : key.expiresAt && key.expiresAt.getTime() <= nowMs
        ? 'expired'
        : null;
  if (!key || reason) {
    metrics.authFailures.inc({ reason: reason ?? 'unknown' });
    throw new AuthenticationError(REFUSALS[reason ?? 'unknown']);
  }
  return key;
}

const REFUSALS = {
  unknown: 'Invalid API key',
  disabled: 'API key is disabled',
  expired: 'API key has expired',
} as const;

/**
 * Build the authentication middleware.
 * @param now - clock for key expiry (tests inject one)
 * @param sessions - dashboard sessions, when the dashboard is on: a request without a bearer key may carry one
 */
export function authenticate(
  keys: KeyCache,
  metrics: Metrics,
  now: () => number = Date.now,
  sessions: DashboardSessions | null = null,
) {
  /** Admit `key` (null: unknown) or throw the refusal; shared by the cached and the loaded lookup. */
  const admit = (req: Request, next: NextFunction, key: ApiKeyRecord | null): void => {
    req.ctx.key = admittedKey(key, metrics, now());
    next();
  };
  /**
   * The key behind a dashboard session, refusing an ended session (its key disabled or deleted
   * since included) or a state change without its CSRF token.
   */
  const sessionKey = async (req: Request, sessions: DashboardSessions, id: string): Promise<ApiKeyRecord> => {
    const session = await sessions.live(id, (hash) => keys.get(hash));
    if (!session) {
      metrics.authFailures.inc({ reason: 'session_ended' });
      throw new AuthenticationError('The dashboard session has ended; sign in again');
    }
    if (sessions.csrfRefused(req, session.record)) {
      metrics.authFailures.inc({ reason: 'csrf' });
      throw csrfRefusal();
    }
    return session.key;
  };
  /** Admit the key whose secret is `secret` (cached: without a promise). */
  const admitSecret = (req: Request, next: NextFunction, secret: string): void | Promise<void> => {
    const hash = hashSecret(secret);
    const cached = keys.peek(hash);
    if (cached !== undefined) return admit(req, next, cached);
    return keys.get(hash).then((key) => admit(req, next, key));
  };
  // Not async: a key found in the cache (nearly every request) is admitted without a promise;
  // only a cache miss waits for the load. Refusals are thrown either way (sync or rejected).
  return function authenticateMiddleware(req: Request, _res: Response, next: NextFunction): void | Promise<void> {
    const header = req.headers.authorization;
    const apiKey = req.headers['x-api-key'];
    // Anthropic's clients (its SDKs, Claude Code with ANTHROPIC_API_KEY) send the key as `x-api-key`.
    if ((!header || header.trim() === '') && typeof apiKey === 'string' && apiKey.trim() !== '')
      return admitSecret(req, next, apiKey.trim());
    if (!header || header.trim() === '') {
      const sessionId = sessions?.idOf(req);
      if (sessions && sessionId) return sessionKey(req, sessions, sessionId).then((key) => admit(req, next, key));
      metrics.authFailures.inc({ reason: 'missing' });
      throw new AuthenticationError();
    }
    const match = BEARER.exec(header);
    if (!match?.[1]) {
      metrics.authFailures.inc({ reason: 'malformed' });
      throw new AuthenticationError('Invalid Authentication header: expected "Bearer <API key>"');
    }
    return admitSecret(req, next, match[1]);
  };
}

/** Management-only routes (`/keys*`, `/workspaces*`, `/analytics/*`): other keys get 403. */
export function requireManagementKey() {
  return function requireManagementKeyMiddleware(req: Request, _res: Response, next: NextFunction): void {
    if (!req.ctx.key?.isManagement) throw new ForbiddenError();
    next();
  };
}

/**
 * Management-only path prefixes (relative to `/api/v1`): `/keys` and below (not `/key`),
 * `/workspaces` and below, `/analytics` and below. Case-insensitive like the router.
 */
const isManagementPath = anyPath(['/keys{/*rest}', '/workspaces{/*rest}', '/analytics{/*rest}']);

/**
 * Mounted after `authenticate`, in front of every route: a non-management key gets 403 on a
 * management-only prefix even where no route exists yet (e.g. `POST /analytics/query`), as the
 * hosted service answers; a management key there still reaches the routes, or 404.
 */
export function requireManagementKeyOnManagementPaths() {
  return function managementPathsMiddleware(req: Request, _res: Response, next: NextFunction): void {
    if (!req.ctx.key?.isManagement && isManagementPath(req.path)) throw new ForbiddenError();
    next();
  };
}

/** Inference routes: management keys are refused (403), as on the hosted service. */
export function requireInferenceKey() {
  return function requireInferenceKeyMiddleware(req: Request, _res: Response, next: NextFunction): void {
    if (!req.ctx.key || req.ctx.key.isManagement) {
      throw new ForbiddenError('Management keys cannot be used for inference; use an API key');
    }
    next();
  };
}

/** The authenticated key; for handlers that run after `authenticate`. */
export function currentKey(req: Request) {
  const key = req.ctx.key;
  if (!key) throw new AuthenticationError();
  return key;
}
