/**
 * Liveness and readiness, outside authentication and rate limits. `/healthz` says only that
 * the process serves HTTP (a restart will not fix a database outage); `/readyz` checks the
 * database and Redis and turns 503 while draining, so load balancers stop sending traffic.
 * @module
 */
import { Router, type Request, type Response } from 'express';
import type { AppDeps } from '../deps';
import { routeLabel } from '../http/request-context';

const CHECK_TIMEOUT_MS = 2000;

async function check(fn: () => Promise<void>): Promise<'ok' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([fn(), timeout]);
    return 'ok';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/** Router with `/healthz` and `/readyz`. */
export function healthRouter(deps: AppDeps): Router {
  const router = Router();
  router.get('/healthz', routeLabel('/healthz'), function healthz(_req: Request, res: Response) {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', routeLabel('/readyz'), async function readyz(_req: Request, res: Response) {
    const [database, redis] = await Promise.all([check(() => deps.db.ping()), check(() => deps.kv.ping())]);
    deps.metrics.dependencyUp.set({ dependency: 'database' }, database === 'ok' ? 1 : 0);
    deps.metrics.dependencyUp.set({ dependency: 'redis' }, redis === 'ok' ? 1 : 0);
    const ready = database === 'ok' && redis === 'ok' && !deps.state.draining;
    res.status(ready ? 200 : 503).json({
      status: ready ? 'ready' : 'not_ready',
      draining: deps.state.draining,
      checks: { database: { status: database, kind: deps.db.kind }, redis: { status: redis, kind: deps.kv.kind } },
    });
  });
  return router;
}
