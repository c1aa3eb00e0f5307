/**
 * The hourly usage rollup (sums, and latency / time-to-first-token histograms) and raw-row
 * retention. {@link refreshRollup} recomputes whole hours from raw rows (delete the hours, insert their sums, in one transaction per day of hours), so
 * running it twice, on two replicas, or after late records arrive never double-counts; each run
 * recomputes the last `lookbackHours` again, and the hours of any row ingested since the previous
 * run (`generations.ingested_at`, the database's clock), so records the usage outbox wrote late,
 * even days late, are picked up.
 * {@link applyRetention} deletes raw rows (and their tags) past the retention in bounded batches;
 * the rollup keeps their sums, so 365-day metrics outlive the raw rows.
 * @module
 */
import type { Database, Queryable } from '../store/db';
import { HIST_KIND, bucketSql } from './histogram';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** How the rollup is refreshed. */
export interface RollupOptions {
  /** Hours before the current watermark recomputed on every run (late records). */
  lookbackHours: number;
  /** An hour is rolled up only once it ended this long ago (records still arriving). */
  graceMs: number;
}

/** Defaults: two hours of lookback, five minutes of grace. */
export const ROLLUP_DEFAULTS: RollupOptions = { lookbackHours: 2, graceMs: 5 * 60_000 };

const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

/** Rows committed this long after their `ingested_at` (a long transaction) are still seen as late. */
const INGEST_MARGIN_MS = 10 * 60_000;

/** The rollup's extent and how far it has seen rows arrive, or null before the first refresh. */
export async function rollupWatermark(
  q: Queryable,
): Promise<{ from: Date; until: Date; ingestedUntil: Date | null } | null> {
  const rows = await q.query<{ from_hour: Date; until_hour: Date; ingested_until: Date | null }>(
    'SELECT from_hour, until_hour, ingested_until FROM usage_rollup_watermark',
  );
  const row = rows[0];
  return row
    ? {
        from: new Date(row.from_hour),
        until: new Date(row.until_hour),
        ingestedUntil: row.ingested_until ? new Date(row.ingested_until) : null,
      }
    : null;
}

/** Hours in [from, before) holding rows ingested since `since`: records written late for hours already rolled up. */
async function lateHours(q: Queryable, since: Date, from: Date, before: Date): Promise<number[]> {
  const rows = await q.query<{ hour: Date }>(
    `SELECT DISTINCT date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour FROM generations
      WHERE ingested_at >= $1 AND created_at >= $2 AND created_at < $3`,
    [new Date(since.getTime() - INGEST_MARGIN_MS), from, before],
  );
  return rows.map((r) => new Date(r.hour).getTime());
}

/**
 * Memory for the refresh's aggregates, in its own transactions only: a day of raw rows grouped in
 * a hash table, where Postgres's default (4 MB) sorts them through temporary files instead.
 */
const REFRESH_WORK_MEM = '64MB';

/** Recompute the hours [from, to) of every organization from raw rows (one transaction): the sums and the latency histograms. */
async function recompute(tx: Queryable, from: Date, to: Date): Promise<void> {
  await tx.query(`SET LOCAL work_mem = '${REFRESH_WORK_MEM}'`);
  await tx.query('DELETE FROM usage_rollup_hourly WHERE hour >= $1 AND hour < $2', [from, to]);
  await tx.query(
    `INSERT INTO usage_rollup_hourly (org_id, hour, workspace_id, key_hash, model, variant, app, request_count, byok_request_count,
                                      tokens_prompt, tokens_completion, cached_tokens, cost_usd, byok_usd, upstream_usd,
                                      reasoning_tokens, chat_output_tokens, chat_generation_ms)
     SELECT g.org_id, date_trunc('hour', g.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', g.workspace_id, g.key_hash, g.model,
            coalesce(g.variant, ''), coalesce(g.app_title, g.http_referer, ''), count(*), count(*) FILTER (WHERE g.is_byok),
            sum(g.tokens_prompt), sum(g.tokens_completion), sum(g.cached_tokens), sum(g.cost_usd),
            coalesce(sum(g.upstream_cost_usd) FILTER (WHERE g.is_byok), 0), coalesce(sum(g.upstream_cost_usd), 0),
            sum(g.reasoning_tokens), coalesce(sum(g.tokens_completion) FILTER (WHERE g.api_type = 'chat' AND g.generation_time_ms > 0), 0),
            coalesce(sum(g.generation_time_ms) FILTER (WHERE g.api_type = 'chat' AND g.generation_time_ms > 0), 0)
       FROM generations g
      WHERE g.created_at >= $1 AND g.created_at < $2
      GROUP BY 1, 2, 3, 4, 5, 6, 7`,
    [from, to],
  );
  await tx.query('DELETE FROM latency_hist_hourly WHERE hour >= $1 AND hour < $2', [from, to]);
  // One index scan of the hours (the materialised CTE), then one small hash aggregate per kind;
  // bucket order inside the arrays does not matter (queries unnest and regroup them).
  const kindSql = (kind: number, column: string) =>
    `SELECT org_id, hour, provider, api_type, ${kind}::smallint AS kind, ${bucketSql(column)}::smallint AS b, count(*) AS n
       FROM g WHERE ${column} IS NOT NULL GROUP BY 1, 2, 3, 4, 6`;
  await tx.query(
    `INSERT INTO latency_hist_hourly (org_id, hour, provider, api_type, kind, buckets, counts)
     WITH g AS MATERIALIZED (
       SELECT org_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, coalesce(provider, '') AS provider,
              api_type, latency_ms, ttft_ms
         FROM generations WHERE created_at >= $1 AND created_at < $2)
     SELECT org_id, hour, provider, api_type, kind, array_agg(b), array_agg(n)
       FROM (${kindSql(HIST_KIND.latency, 'latency_ms')} UNION ALL ${kindSql(HIST_KIND.ttft, 'ttft_ms')}) x
      GROUP BY 1, 2, 3, 4, 5`,
    [from, to],
  );
}

/**
 * Bring the rollup up to the last hour that ended `graceMs` before `now`, one day of hours per
 * transaction, under a cluster-wide lock. Returns the hours recomputed.
 */
export async function refreshRollup(db: Database, now: number, opts: RollupOptions = ROLLUP_DEFAULTS): Promise<number> {
  return db.withLock('analytics-rollup', async () => {
    // Block ranges filled since the last run are only skipped by the BRIN index once summarised
    // (autosummarize does it eventually); summarising them now keeps each day's scan small.
    // Best effort: should it fail, autosummarize still catches up and the rollup is unaffected.
    await db.query(`SELECT brin_summarize_new_values('generations_created_brin')`).catch(() => undefined);
    const until = floorHour(now - opts.graceMs);
    const mark = await rollupWatermark(db);
    let from: number;
    let origin: number;
    if (mark) {
      origin = mark.from.getTime();
      from = Math.max(origin, mark.until.getTime() - opts.lookbackHours * HOUR_MS);
    } else {
      const [oldest] = await db.query<{ t: Date | null }>('SELECT min(created_at) AS t FROM generations');
      origin = oldest?.t ? floorHour(new Date(oldest.t).getTime()) : until;
      from = origin;
    }
    const [seen] = await db.query<{ t: Date }>('SELECT now() AS t');
    let done = 0;
    if (mark?.ingestedUntil && from > origin) {
      for (const hour of await lateHours(db, mark.ingestedUntil, new Date(origin), new Date(from))) {
        await db.transaction((tx) => recompute(tx, new Date(hour), new Date(hour + HOUR_MS)));
        done++;
      }
    }
    let start = from;
    do {
      const end = Math.max(start, Math.min(start + DAY_MS, until));
      const watermark = Math.max(end, mark ? mark.until.getTime() : origin);
      await db.transaction(async (tx) => {
        if (end > start) await recompute(tx, new Date(start), new Date(end));
        await tx.query(
          `INSERT INTO usage_rollup_watermark (id, from_hour, until_hour, refreshed_at, ingested_until, hist_from) VALUES (true, $1, $2, $3, $4, $1)
           ON CONFLICT (id) DO UPDATE SET until_hour = EXCLUDED.until_hour, refreshed_at = EXCLUDED.refreshed_at,
                                          ingested_until = EXCLUDED.ingested_until`,
          [new Date(origin), new Date(watermark), new Date(now), seen?.t ?? null],
        );
      });
      done += (end - start) / HOUR_MS;
      start = end;
    } while (start < until);
    return done;
  });
}

/**
 * Delete raw usage rows (and their classifier tags) older than `days` before `now`, in batches
 * of `batch` rows so no statement holds locks for long. The rollup keeps their sums. Returns
 * the rows deleted.
 */
export async function applyRetention(db: Database, now: number, days: number, batch = 10_000): Promise<number> {
  if (days <= 0) return 0;
  const cutoff = new Date(now - days * DAY_MS);
  return db.withLock('analytics-retention', async () => {
    let total = 0;
    for (;;) {
      const [gone] = await db.query<{ n: number }>(
        `WITH d AS (DELETE FROM generations WHERE id IN (SELECT id FROM generations WHERE created_at < $1 LIMIT $2) RETURNING 1)
         SELECT count(*)::int AS n FROM d`,
        [cutoff, batch],
      );
      const n = gone?.n ?? 0;
      total += n;
      if (n < batch) break;
    }
    await db.query('DELETE FROM generation_tags WHERE created_at < $1', [cutoff]);
    return total;
  });
}
