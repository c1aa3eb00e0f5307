/**
 * `GET /datasets/rankings-daily` (any key): the daily token ranking of the models this gateway
 * served, read from the rollup. Limited per key per minute and per organization per day, on
 * top of the API-wide limit.
 * @module
 */
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey } from '../auth/authenticate';
import { validate, validated } from '../http/validate';
import { perKeyRateLimit } from '../http/rate-limit';
import type { ApiRouter } from '../http/router';

/** Register the datasets route. */
export function registerDatasetRoutes(api: ApiRouter, deps: AppDeps): void {
  const { rankings, metrics, logger, config, rateLimitStore } = deps;
  const failMode = config.rateLimit.failMode;
  const perKey = perKeyRateLimit(rateLimitStore, metrics, logger, {
    name: 'rankings',
    windowMs: 60_000,
    limit: config.rankings.perKeyPerMinute,
    failMode,
  });
  const perOrg = perKeyRateLimit(rateLimitStore, metrics, logger, {
    name: 'rankings_org',
    windowMs: 86_400_000,
    limit: config.rankings.perOrgPerDay,
    failMode,
    keyOf: (req) => req.ctx.key?.orgId ?? 'anonymous',
  });
  api.add(
    'get',
    '/datasets/rankings-daily',
    perKey,
    perOrg,
    validate({ query: 'datasets.rankings.query' }),
    async function getRankingsDaily(req: Request, res: Response) {
      res.json(await rankings.service.read(currentKey(req).orgId, validated(req, 'datasets.rankings.query')));
    },
  );
}
