/**
 * The rows a query reads when the hourly rollup can answer it: rollup hours inside both the
 * window and the rollup's watermark, raw rows (shaped like rollup rows) for the rest.
 * @module
 */
import type { QueryPlan } from './types';
import type { Params } from './params';
import { HIST_KIND, bucketSql } from './histogram';

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

/**
 * Can the latency histograms answer `plan`? Only percentiles they keep (every metric), grouped
 * and filtered by the dimensions they keep, no classifier, buckets of an hour or more. Anything
 * else is answered exactly from raw rows.
 */
export function histCanAnswer(plan: QueryPlan): boolean {
  return (
    plan.classifier === null &&
    plan.granularity?.name !== 'minute' &&
    plan.order.column.kind !== 'request_count' &&
    plan.metrics.every((m) => m.hist !== undefined) &&
    plan.dimensions.every((d) => d.hist !== undefined) &&
    plan.filters.every((f) => f.dimension.hist !== undefined)
  );
}

const HOUR_MS = 3_600_000;

/** Raw rows in the shape of rollup rows (one request each), for the window's edges the rollup does not hold. */
const RAW_AS_ROLLUP = `g.created_at AS ts, g.workspace_id, g.key_hash, g.model, coalesce(g.variant, '') AS variant,
  coalesce(g.app_title, g.http_referer, '') AS app, 1 AS request_count, CASE WHEN g.is_byok THEN 1 ELSE 0 END AS byok_request_count,
  g.tokens_prompt, g.tokens_completion, g.cached_tokens, g.cost_usd,
  CASE WHEN g.is_byok THEN coalesce(g.upstream_cost_usd, 0) ELSE 0 END AS byok_usd, coalesce(g.upstream_cost_usd, 0) AS upstream_usd,
  g.reasoning_tokens, CASE WHEN g.api_type = 'chat' AND g.generation_time_ms > 0 THEN g.tokens_completion ELSE 0 END AS chat_output_tokens,
  CASE WHEN g.api_type = 'chat' AND g.generation_time_ms > 0 THEN g.generation_time_ms ELSE 0 END AS chat_generation_ms`;

/** Raw rows as histogram entries (one count in the bucket of each figure they have), for the window's edges. */
const RAW_AS_HIST = `g.created_at AS ts, coalesce(g.provider, '') AS provider, g.api_type, k.kind, ${bucketSql('k.v')} AS bucket, 1::bigint AS n
  FROM generations g CROSS JOIN LATERAL (VALUES (${HIST_KIND.latency}::smallint, g.latency_ms), (${HIST_KIND.ttft}::smallint, g.ttft_ms)) AS k(kind, v)`;

/** The hours the rollup answers for `plan`: SQL for their start (`rs`) and end (`re`), evaluated once. */
function rollupHours(
  p: Params,
  plan: QueryPlan,
  histograms: boolean,
): { start: string; end: string; rs: string; re: string } {
  const start = p.add(plan.start);
  const end = p.add(plan.end);
  const ceil = p.add(new Date(Math.ceil(plan.start.getTime() / HOUR_MS) * HOUR_MS));
  const floor = p.add(new Date(Math.floor(plan.end.getTime() / HOUR_MS) * HOUR_MS));
  // Histograms exist only from `hist_from` on (hours rolled up before migration 015 have none).
  const from = histograms ? `greatest(m.from_hour, coalesce(m.hist_from, m.until_hour))` : 'm.from_hour';
  const rs = `CASE WHEN m.id IS NULL THEN ${end}::timestamptz ELSE greatest(${ceil}::timestamptz, ${from}) END`;
  const re = `CASE WHEN m.id IS NULL THEN ${end}::timestamptz ELSE greatest(least(${floor}::timestamptz, m.until_hour), greatest(${ceil}::timestamptz, ${from})) END`;
  // Uncorrelated scalar subqueries: evaluated once, so each branch is an index range scan.
  const watermark = (e: string) => `(SELECT ${e} FROM (SELECT 1) one LEFT JOIN usage_rollup_watermark m ON true)`;
  return { start, end, rs: watermark(rs), re: watermark(re) };
}

/**
 * The rows a rollup-answered query reads: rollup hours inside both the window and the rollup's
 * watermark, plus raw rows for the rest of the window (before and after those hours). The two
 * raw ranges and the rollup range never overlap and together cover the window exactly.
 */
export function rollupSource(p: Params, org: string, plan: QueryPlan): string {
  const { start, end, rs: RS, re: RE } = rollupHours(p, plan, false);
  return (
    `(SELECT r.hour AS ts, r.workspace_id, r.key_hash, r.model, r.variant, r.app, r.request_count, r.byok_request_count, r.tokens_prompt, ` +
    `r.tokens_completion, r.cached_tokens, r.cost_usd, r.byok_usd, r.upstream_usd, r.reasoning_tokens, r.chat_output_tokens, r.chat_generation_ms ` +
    `FROM usage_rollup_hourly r WHERE r.org_id = ${org} AND r.hour >= ${RS} AND r.hour < ${RE} ` +
    `UNION ALL SELECT ${RAW_AS_ROLLUP} FROM generations g WHERE g.org_id = ${org} AND g.created_at >= ${start} AND g.created_at < least(${RS}, ${end}) ` +
    `UNION ALL SELECT ${RAW_AS_ROLLUP} FROM generations g WHERE g.org_id = ${org} AND g.created_at >= greatest(${RE}, ${start}) AND g.created_at < ${end}) r`
  );
}

/**
 * The histogram entries a histogram-answered query reads, one row per (time, provider, api type,
 * kind, bucket) with its count: the hourly histograms' hours inside the window and the watermark
 * (unnested), plus raw rows bucketed the same way for the rest of the window.
 */
export function histSource(p: Params, org: string, plan: QueryPlan): string {
  const { start, end, rs: RS, re: RE } = rollupHours(p, plan, true);
  const raw = (range: string) => `SELECT ${RAW_AS_HIST} WHERE g.org_id = ${org} AND ${range} AND k.v IS NOT NULL`;
  return (
    `(SELECT h.hour AS ts, h.provider, h.api_type, h.kind, u.bucket, u.n FROM latency_hist_hourly h CROSS JOIN LATERAL unnest(h.buckets, h.counts) AS u(bucket, n) ` +
    `WHERE h.org_id = ${org} AND h.hour >= ${RS} AND h.hour < ${RE} ` +
    `UNION ALL ${raw(`g.created_at >= ${start} AND g.created_at < least(${RS}, ${end})`)} ` +
    `UNION ALL ${raw(`g.created_at >= greatest(${RE}, ${start}) AND g.created_at < ${end}`)}) r`
  );
}
