/**
 * The rows a query reads when the hourly rollup can answer it: rollup hours inside both the
 * window and the rollup's watermark, raw rows (shaped like rollup rows) for the rest.
 * @module
 */
import type { QueryPlan } from './types';
import type { Params } from './params';

/**
 * Can the hourly rollup answer `plan`? Only additive metrics and the dimensions it keeps, no
 * classifier, and buckets of an hour or more.
 */
export function rollupCanAnswer(plan: QueryPlan): boolean {
  return (
    plan.classifier === null &&
    plan.granularity?.name !== 'minute' &&
    plan.metrics.every((m) => m.rollup !== undefined) &&
    plan.dimensions.every((d) => d.rollup !== undefined) &&
    plan.filters.every((f) => f.dimension.rollup !== undefined)
  );
}

const HOUR_MS = 3_600_000;

/** Raw rows in the shape of rollup rows (one request each), for the window's edges the rollup does not hold. */
const RAW_AS_ROLLUP = `g.created_at AS ts, g.workspace_id, g.key_hash, g.model, coalesce(g.variant, '') AS variant,
  coalesce(g.app_title, g.http_referer, '') AS app, 1 AS request_count, CASE WHEN g.is_byok THEN 1 ELSE 0 END AS byok_request_count,
  g.tokens_prompt, g.tokens_completion, g.cached_tokens, g.cost_usd,
  CASE WHEN g.is_byok THEN coalesce(g.upstream_cost_usd, 0) ELSE 0 END AS byok_usd, coalesce(g.upstream_cost_usd, 0) AS upstream_usd`;

/**
 * The rows a rollup-answered query reads: rollup hours inside both the window and the rollup's
 * watermark, plus raw rows for the rest of the window (before and after those hours). The two
 * raw ranges and the rollup range never overlap and together cover the window exactly.
 */
export function rollupSource(p: Params, org: string, plan: QueryPlan): string {
  const start = p.add(plan.start);
  const end = p.add(plan.end);
  const ceil = p.add(new Date(Math.ceil(plan.start.getTime() / HOUR_MS) * HOUR_MS));
  const floor = p.add(new Date(Math.floor(plan.end.getTime() / HOUR_MS) * HOUR_MS));
  const rs = `CASE WHEN m.id IS NULL THEN ${end}::timestamptz ELSE greatest(${ceil}::timestamptz, m.from_hour) END`;
  const re = `CASE WHEN m.id IS NULL THEN ${end}::timestamptz ELSE greatest(least(${floor}::timestamptz, m.until_hour), greatest(${ceil}::timestamptz, m.from_hour)) END`;
  // Uncorrelated scalar subqueries: evaluated once, so each branch is an index range scan.
  const watermark = (e: string) => `(SELECT ${e} FROM (SELECT 1) one LEFT JOIN usage_rollup_watermark m ON true)`;
  const RS = watermark(rs);
  const RE = watermark(re);
  return (
    `(SELECT r.hour AS ts, r.workspace_id, r.key_hash, r.model, r.variant, r.app, r.request_count, r.byok_request_count, r.tokens_prompt, ` +
    `r.tokens_completion, r.cached_tokens, r.cost_usd, r.byok_usd, r.upstream_usd FROM usage_rollup_hourly r WHERE r.org_id = ${org} AND r.hour >= ${RS} AND r.hour < ${RE} ` +
    `UNION ALL SELECT ${RAW_AS_ROLLUP} FROM generations g WHERE g.org_id = ${org} AND g.created_at >= ${start} AND g.created_at < least(${RS}, ${end}) ` +
    `UNION ALL SELECT ${RAW_AS_ROLLUP} FROM generations g WHERE g.org_id = ${org} AND g.created_at >= greatest(${RE}, ${start}) AND g.created_at < ${end}) r`
  );
}

