/**
 * `GET /analytics/meta` and `POST /analytics/query` (management keys only), behind their own
 * per-key rate limit (64 per minute by default, as the hosted service).
 * @module
 */
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey, requireManagementKey } from '../auth/authenticate';
import { validate, validated } from '../http/validate';
import type { Wire } from '../wire';
import type { ApiRouter } from '../http/router';
import { perKeyRateLimit } from '../http/rate-limit';
import { analyticsMeta } from '../analytics/catalog';

/** Register the analytics routes. */
export function registerAnalyticsRoutes(api: ApiRouter, deps: AppDeps): void {
  const { windowMs, limit } = deps.config.analytics.rateLimit;
  const limited = perKeyRateLimit(deps.rateLimitStore, deps.metrics, deps.logger, {
    name: 'analytics',
    windowMs,
    limit,
    failMode: deps.config.rateLimit.failMode,
  });
  const mgmt = requireManagementKey();

  api.add('get', '/analytics/meta', mgmt, limited, function getAnalyticsMeta(_req: Request, res: Response) {
    res.json(analyticsMeta() satisfies Wire<'analytics.meta.response'>);
  });

  api.add(
    'post',
    '/analytics/query',
    mgmt,
    limited,
    validate({ body: 'analytics.query.body' }),
    async function queryAnalytics(req: Request, res: Response) {
      res.json({ data: await deps.analytics.query(currentKey(req).orgId, validated(req, 'analytics.query.body')) });
    },
  );
}
