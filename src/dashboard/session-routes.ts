/**
 * `/dashboard/api/session`: sign in with a management key (exchanged once for a session
 * cookie; the key goes no further), read the session (the app's CSRF token after a reload), and
 * sign out. Sign-in attempts are rate-limited per client address, wrong keys included.
 * @module
 */
import express, { Router, type Request, type Response } from 'express';
import type { AppDeps } from '../deps';
import type { Config } from '../config';
import { admittedKey } from '../auth/authenticate';
import { AuthenticationError, ForbiddenError } from '../errors';
import { hashSecret } from '../keys/secrets';
import type { ApiKeyRecord } from '../keys/types';
import { perKeyRateLimit } from '../http/rate-limit';
import { validate, validated } from '../http/validate';
import { csrfRefusal, type DashboardSessions, type SessionRecord } from './sessions';
import type { Wire } from '../wire';

/**
 * The session as the app sees it: its CSRF token, when it ends, which key opened it, and the
 * rankings scope (the Rankings page offers today's traffic only where the scope publishes it).
 */
function toWireSession(
  record: SessionRecord,
  key: ApiKeyRecord,
  rankingsScope: Config['rankings']['scope'],
): Wire<'dashboard.session.response'> {
  return {
    data: {
      csrf_token: record.csrf,
      expires_at: new Date(record.expiresAt).toISOString(),
      key: { hash: key.hash, name: key.name, label: key.label },
      rankings_scope: rankingsScope,
    },
  };
}

/** What the session routes use. */
export type SessionDeps = Pick<AppDeps, 'config' | 'keyCache' | 'metrics' | 'clock' | 'rateLimitStore' | 'logger'>;

/** The session routes, mounted at `/dashboard/api`. */
export function sessionRoutes(deps: SessionDeps, sessions: DashboardSessions): Router {
  const { keyCache, metrics, clock } = deps;
  const router = Router();
  const signInLimit = perKeyRateLimit(deps.rateLimitStore, metrics, deps.logger, {
    name: 'dashboard_sign_in',
    windowMs: 60_000,
    limit: deps.config.dashboardSessions.signInPerMinute,
    failMode: deps.config.rateLimit.failMode,
    keyOf: (req) => req.ip ?? 'unknown',
  });

  /** The live session and its key, or a 401 that sends the app to its sign-in form. */
  const current = async (req: Request) => {
    const id = sessions.idOf(req);
    const session = id ? await sessions.live(id, (hash) => keyCache.get(hash)) : null;
    if (!id || !session) throw new AuthenticationError('Not signed in to the dashboard');
    return { id, ...session };
  };

  router.use(sessions.cookies, express.json({ limit: '4kb' }));

  router.post(
    '/session',
    signInLimit,
    validate({ body: 'dashboard.session.body' }),
    async function signIn(req: Request, res: Response) {
      const { key: secret } = validated(req, 'dashboard.session.body');
      const key = admittedKey(await keyCache.get(hashSecret(secret.trim())), metrics, clock());
      if (!key.isManagement)
        throw new ForbiddenError('The dashboard needs a management key; this is an API key for inference');
      const { id, record } = await sessions.create(key);
      sessions.setCookie(req, res, id);
      res.json(toWireSession(record, key, deps.config.rankings.scope));
    },
  );

  router.get('/session', async function readSession(req: Request, res: Response) {
    const { record, key } = await current(req);
    res.json(toWireSession(record, admittedKey(key, metrics, clock()), deps.config.rankings.scope));
  });

  router.delete('/session', async function signOut(req: Request, res: Response) {
    const { id, record } = await current(req);
    if (sessions.csrfRefused(req, record)) throw csrfRefusal();
    await sessions.close(id);
    sessions.clearCookie(req, res);
    res.json({ data: { signed_out: true } });
  });
  return router;
}
