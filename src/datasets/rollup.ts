/**
 * The rankings rollup: turns usage records (`generations`) and classified samples into the
 * tables every rankings query reads. A day is recomputed whole (delete + insert in one
 * transaction), so re-running never double counts. Each run re-rolls: every day since the
 * previous run and `lookbackDays` before today; the days of records ingested since the previous
 * run began (`generations.ingested_at`, less {@link INGEST_MARGIN_MS} for transactions that were
 * still open), so late records for any past day are picked up; and every day since the first
 * record that was never rolled. One runner at a time across replicas (advisory lock); a second
 * one waits, then finds little left to do. In the installation scope a run then publishes the
 * completed days and weeks due (publish.ts), first re-rolling those last rolled too early.
 * @module
 */
import type { Database, Queryable } from '../store/db';
import { BUCKET_SQL } from './buckets';
import { DATASET_START, dayOf, dayStartMs, formatDay, monthStart, parseDay, weekStart } from './dates';
import { NOTHING_DUE, RankingsPublisher, type DueUnits, type PublishOptions } from './publish';

const FLOOR = parseDay(DATASET_START) as number;
const LOCK = 'rankings-rollup';
/** How long a usage insert's transaction may stay open and still be seen by the next run. */
export const INGEST_MARGIN_MS = 10 * 60_000;

/** What one run did. */
export interface RollupResult {
  /** Days recomputed, `YYYY-MM-DD` ascending. */
  days: string[];
  /** Weeks (Monday) of sampled tags recomputed. */
  weeks: string[];
  /** The run's time: the answers' `meta.as_of` from now on. */
  rolledAt: Date;
  /** Installation scope: days and weeks (Monday) published by this run, `YYYY-MM-DD`. */
  published: { days: string[]; weeks: string[] };
}

/** Options of {@link RankingsRollup}. */
export interface RollupOptions {
  /** Days before today re-rolled on every run, for usage records written late. */
  lookbackDays: number;
  clock: () => number;
  /** Installation scope: publish completed days and weeks with these settings; null (organization scope): never. */
  publish?: PublishOptions | null;
}

/** Output modality of a row, also for rows written before it was recorded (migration 006). */
const OUTPUT_MODALITY_SQL = `COALESCE(output_modality, CASE WHEN api_type = 'embeddings' THEN 'embeddings' ELSE 'text' END)`;

const ROLL_DAY = `INSERT INTO rankings_daily (day, org_id, model, image_input, audio_input, output_modality, tool_calling, context_bucket, tokens, requests)
SELECT $1::date, org_id, model,
       COALESCE(input_modality, '') LIKE '%image%', COALESCE(input_modality, '') LIKE '%audio%',
       ${OUTPUT_MODALITY_SQL}, tool_calls > 0, ${BUCKET_SQL},
       SUM(tokens_prompt::bigint + tokens_completion::bigint), COUNT(*)
FROM generations
WHERE created_at >= $2::timestamptz AND created_at < $3::timestamptz
GROUP BY 2, 3, 4, 5, 6, 7, 8`;

const ROLL_TOTALS = `INSERT INTO rankings_daily_totals (day, org_id, model, tokens)
SELECT day, org_id, model, SUM(tokens) FROM rankings_daily WHERE day = $1::date GROUP BY 1, 2, 3`;

/** Upsampled tokens of a week's samples, for one tag column (the code's own, never input). */
function rollTagSql(column: 'category' | 'language_type'): string {
  return `INSERT INTO rankings_weekly_tags (week, org_id, model, dimension, value, tokens)
SELECT $1::date, org_id, model, '${column}', ${column}, ROUND(SUM(tokens * weight))::bigint
FROM rankings_samples
WHERE sampled_at >= $2::timestamptz AND sampled_at < $3::timestamptz AND ${column} IS NOT NULL
GROUP BY 2, 3, 5`;
}
const ROLL_PERIOD = `INSERT INTO rankings_period_totals (period, bucket, org_id, model, tokens, rank)
SELECT $1, $2::date, org_id, model, SUM(tokens), rank() OVER (PARTITION BY org_id ORDER BY SUM(tokens) DESC)
FROM rankings_daily_totals WHERE day >= $2::date AND day < $3::date GROUP BY 3, 4`;

const ROLL_PERIOD_SUMS = `INSERT INTO rankings_period_sums (period, bucket, org_id, tokens)
SELECT $1, $2::date, org_id, SUM(tokens) FROM rankings_daily_totals WHERE day >= $2::date AND day < $3::date GROUP BY 3`;

const ROLL_CATEGORY = rollTagSql('category');
const ROLL_LANGUAGE = rollTagSql('language_type');

/**
 * Runs queued per database handle in this process: waiting on the advisory lock holds a pooled
 * connection, and the holder needs another for its statements, so a process's runners must not
 * all wait on the lock at once (they would take the whole pool). One waits; the rest queue here.
 */
const queues = new WeakMap<Database, Promise<unknown>>();

function serialised<T>(db: Database, fn: () => Promise<T>): Promise<T> {
  const result = (queues.get(db) ?? Promise.resolve()).then(fn, fn);
  queues.set(
    db,
    result.catch(() => undefined),
  ); // the caller gets the failure; the queue only orders runs
  return result;
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let d = from; d <= to; d++) out.push(d);
  return out;
}

function iso(day: number): string {
  return new Date(dayStartMs(day)).toISOString();
}

/** Runs the rollup over one database. */
export class RankingsRollup {
  private readonly publisher: RankingsPublisher | null;

  constructor(
    private readonly db: Database,
    private readonly opts: RollupOptions,
  ) {
    this.publisher = opts.publish ? new RankingsPublisher(db, opts.publish) : null;
  }

  /**
   * Roll up everything due now (see the module comment).
   * @param minGapMs - skip the run when another finished less than this long ago: replicas on
   *   the same schedule queue on the lock, and the first one's work serves them all
   */
  run(minGapMs = 0): Promise<RollupResult> {
    return this.locked(async () => {
      const now = this.opts.clock();
      const last = await this.asOf();
      if (last && minGapMs > 0 && now - last.getTime() < minGapMs)
        return { days: [], weeks: [], rolledAt: last, published: { days: [], weeks: [] } };
      const mark = await this.dbNow();
      return this.rollDays(await this.dueDays(dayOf(now)), now, mark);
    });
  }

  /** Recompute exactly the given days (the CLI's `--from/--to`), and their weeks' tags. */
  rollRange(fromDay: number, toDay: number): Promise<RollupResult> {
    return this.locked(async () => {
      const mark = await this.dbNow();
      return this.rollDays(range(Math.max(fromDay, FLOOR), toDay), this.opts.clock(), mark);
    });
  }

  /** Run `fn` as the only runner: first in this process, then across processes (advisory lock). */
  private locked<T>(fn: () => Promise<T>): Promise<T> {
    return serialised(this.db, () => this.db.withLock(LOCK, fn));
  }

  /** The database's time: `ingested_at` is set by the database, so marks compare in its clock. */
  private async dbNow(): Promise<string> {
    const [row] = await this.db.query<{ now: Date | string }>('SELECT now() AS now');
    return new Date((row as { now: Date | string }).now).toISOString();
  }

  /** Roll `requested` (and the days publication needs re-rolled), then publish what is due. */
  private async rollDays(requested: number[], now: number, mark: string): Promise<RollupResult> {
    const rolledAt = new Date(now);
    const due: DueUnits = this.publisher ? await this.publisher.due(now) : NOTHING_DUE;
    const days = [...new Set([...requested, ...due.reroll])].sort((a, b) => a - b);
    for (const day of days) await this.db.transaction((tx) => this.rollDay(tx, day, rolledAt));
    const weeks = [...new Set(days.map(weekStart))];
    for (const week of weeks) await this.db.transaction((tx) => this.rollWeek(tx, week));
    for (const month of new Set(days.map(monthStart)))
      await this.db.transaction((tx) => this.rollPeriod(tx, 'month', month, monthStart(month + 31)));
    await this.publisher?.publish(due, rolledAt);
    await this.db.query(
      `INSERT INTO rankings_rollup_runs (id, rolled_at, ingest_mark) VALUES (1, $1, $2)
       ON CONFLICT (id) DO UPDATE SET rolled_at = EXCLUDED.rolled_at, ingest_mark = GREATEST(rankings_rollup_runs.ingest_mark, EXCLUDED.ingest_mark)`,
      [rolledAt.toISOString(), mark],
    );
    return {
      days: days.map(formatDay),
      weeks: weeks.map(formatDay),
      rolledAt,
      published: { days: due.days.map(formatDay), weeks: due.weeks.map(formatDay) },
    };
  }

  /** Days since the last run (and the lookback before today), plus days never rolled since the first record. */
  private async dueDays(today: number): Promise<number[]> {
    const [last] = await this.db.query<{ rolled_at: Date | string; ingest_mark: Date | string }>(
      'SELECT rolled_at, ingest_mark FROM rankings_rollup_runs WHERE id = 1',
    );
    const [first] = await this.db.query<{ first: Date | string | null }>(
      'SELECT MIN(created_at) AS first FROM generations',
    );
    const lastDay = last ? dayOf(new Date(last.rolled_at).getTime()) : today;
    const due = new Set(range(Math.max(FLOOR, Math.min(lastDay, today - this.opts.lookbackDays)), today));
    if (last) {
      const since = new Date(new Date(last.ingest_mark).getTime() - INGEST_MARGIN_MS).toISOString();
      const late = await this.db.query<{ day: string }>(
        `SELECT DISTINCT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM generations WHERE ingested_at > $1::timestamptz`,
        [since],
      );
      for (const r of late) {
        const d = parseDay(r.day);
        if (d !== null && d >= FLOOR && d <= today) due.add(d);
      }
    }
    if (first?.first) {
      const firstDay = Math.max(FLOOR, dayOf(new Date(first.first).getTime()));
      const rolled = await this.db.query<{ day: string }>(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day FROM rankings_rollup_days WHERE day >= $1::date`,
        [formatDay(firstDay)],
      );
      const done = new Set(rolled.map((r) => parseDay(r.day)));
      for (const d of range(firstDay, today)) if (!done.has(d)) due.add(d);
    }
    return [...due].sort((a, b) => a - b);
  }

  private async rollDay(tx: Queryable, day: number, rolledAt: Date): Promise<void> {
    const date = formatDay(day);
    await tx.query('DELETE FROM rankings_daily WHERE day = $1::date', [date]);
    await tx.query('DELETE FROM rankings_daily_totals WHERE day = $1::date', [date]);
    await tx.query(ROLL_DAY, [date, iso(day), iso(day + 1)]);
    await tx.query(ROLL_TOTALS, [date]);
    await tx.query(
      `INSERT INTO rankings_rollup_days (day, rolled_at) VALUES ($1::date, $2) ON CONFLICT (day) DO UPDATE SET rolled_at = EXCLUDED.rolled_at`,
      [date, rolledAt.toISOString()],
    );
  }

  /** Recompute one week's or month's totals from the daily totals. */
  private async rollPeriod(tx: Queryable, period: 'week' | 'month', start: number, next: number): Promise<void> {
    const params = [period, formatDay(start), formatDay(next)];
    await tx.query('DELETE FROM rankings_period_totals WHERE period = $1 AND bucket = $2::date', params.slice(0, 2));
    await tx.query('DELETE FROM rankings_period_sums WHERE period = $1 AND bucket = $2::date', params.slice(0, 2));
    await tx.query(ROLL_PERIOD, params);
    await tx.query(ROLL_PERIOD_SUMS, params);
  }

  private async rollWeek(tx: Queryable, week: number): Promise<void> {
    await this.rollPeriod(tx, 'week', week, week + 7);
    const params = [formatDay(week), iso(week), iso(week + 7)];
    await tx.query('DELETE FROM rankings_weekly_tags WHERE week = $1::date', [params[0]]);
    await tx.query(ROLL_CATEGORY, params);
    await tx.query(ROLL_LANGUAGE, params);
  }

  /** When the data was last rolled up, or null before the first run. */
  async asOf(): Promise<Date | null> {
    const [row] = await this.db.query<{ rolled_at: Date | string }>(
      'SELECT rolled_at FROM rankings_rollup_runs WHERE id = 1',
    );
    return row ? new Date(row.rolled_at) : null;
  }
}
