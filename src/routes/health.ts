/**
 * Liveness and readiness, outside authentication and rate limits. `/healthz` says only that
 * the process serves HTTP (a restart will not fix a database outage). `/readyz` checks the
 * database and Redis and turns 503 while draining or when this replica cannot serve: the
 * database is down, or Redis is down and the rate limiter is set to fail closed. With Redis down
 * and the limiter failing open the replica still serves most routes (budgeted embeddings fail
 * closed on their own), so it reports `degraded` with 200: taking every replica out of the
 * Service for a shared Redis outage would turn a partial outage into a total one.
 * @module
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppDeps } from '../deps';
import { pathMatcher } from '../http/route-templates';

const CHECK_TIMEOUT_MS = 2000;
const isHealthz = pathMatcher('/healthz');
const isReadyz = pathMatcher('/readyz');

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

/**
 * `GET /healthz` and `GET /readyz` (HEAD too), as one middleware that looks at the path and
 * otherwise passes on: a nested Router here would cost every API request a router dispatch.
 */
export function healthRouter(deps: AppDeps): RequestHandler {
  const healthz = (_req: Request, res: Response) => {
    res.json({ status: 'ok' });
  };
  const readyz = async (_req: Request, res: Response) => {
    const [database, redis] = await Promise.all([check(() => deps.db.ping()), check(() => deps.kv.ping())]);
    deps.metrics.dependencyUp.set({ dependency: 'database' }, database === 'ok' ? 1 : 0);
    deps.metrics.dependencyUp.set({ dependency: 'redis' }, redis === 'ok' ? 1 : 0);
    const redisTolerated = redis === 'ok' || deps.config.rateLimit.failMode === 'open';
    const ready = database === 'ok' && redisTolerated && !deps.state.draining;
    res.status(ready ? 200 : 503).json({
      status: !ready ? 'not_ready' : redis === 'ok' ? 'ready' : 'degraded',
      draining: deps.state.draining,
      checks: { database: { status: database, kind: deps.db.kind }, redis: { status: redis, kind: deps.kv.kind } },
    });
  };
  return function health(req: Request, res: Response, next: NextFunction) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (isHealthz(req.path)) {
      req.ctx.route = '/healthz';
      return healthz(req, res);
    }
    if (isReadyz(req.path)) {
      req.ctx.route = '/readyz';
      return readyz(req, res);
    }
    return next();
  };
}
