/**
 * Publication of the installation-wide rankings (`rankings.scope: installation`), so that no
 * tenant can recover another's traffic by differencing answers or by colluding:
 *
 * - only completed UTC days (ISO weeks for the sampled datasets) are published, and only
 *   `publishDelayMs` after they end, so records written a little late are still in;
 * - each is published once, in one transaction with its noise drawn then and stored, and never
 *   recomputed: a re-query, a re-run of the rollup or a late record changes nothing;
 * - per day and dataset a model is named only when at least `minOrganizations` organizations
 *   used it and none contributed more than `maxOrgShare` of its tokens (an (n, k) dominance
 *   rule on the exact figures); everything else is one `other` cell, published for every dataset
 *   every day, empty or not, so its presence says nothing;
 * - every cell sums each organization's contribution clamped at `clampTokens` (7 × that for a
 *   weekly sampled cell) and adds discrete Laplace noise of scale clamp / `epsilon`.
 *
 * Queries in the installation scope read only what is published here (see query.ts).
 * @module
 */
import type { Config } from '../config';
import type { Database, Queryable } from '../store/db';
import { CONTEXT_BUCKETS } from './buckets';
import { DATASET_START, dayOf, dayStartMs, formatDay, parseDay, weekStart } from './dates';
import { discreteLaplace, secureUniform, type Uniform } from './noise';
import { CATEGORIES, type DatasetFilter, type Modality } from './types';

const FLOOR = parseDay(DATASET_START) as number;

/** The privacy settings of the installation scope (`rankings.*`). */
export interface PublishOptions {
  minOrganizations: number;
  maxOrgShare: number;
  clampTokens: number;
  epsilon: number;
  publishDelayMs: number;
  /** The noise's uniform source (default: the CSPRNG). */
  uniform?: Uniform;
}

/** What is due for publication now, and which days must be rolled up again first. */
export interface DueUnits {
  days: number[];
  weeks: number[];
  /** Days last rolled before they ended plus the delay (a week's tags are rolled with its Sunday). */
  reroll: number[];
}

/** Nothing to publish (the organization scope). */
export const NOTHING_DUE: DueUnits = { days: [], weeks: [], reroll: [] };

/** The publication settings, or null when the scope is the organization's (nothing is published). */
export function publishOptions(cfg: Config['rankings']): PublishOptions | null {
  if (cfg.scope !== 'installation') return null;
  return {
    minOrganizations: cfg.minOrganizations,
    maxOrgShare: cfg.maxOrgShare,
    clampTokens: cfg.clampTokens,
    epsilon: cfg.epsilon,
    publishDelayMs: cfg.publishDelayMs,
  };
}

/** The facet conditions on `rankings_daily` per `modality` value (constants, never input). */
export const MODALITY_SQL: Readonly<Record<Modality, string>> = {
  text: `output_modality = 'text'`,
  image_output: `output_modality = 'image'`,
  image: 'image_input',
  audio: 'audio_input',
  tool_calling: 'tool_calling',
};

/** The canonical key a filter's cells are published under. */
export function datasetKey(filter: DatasetFilter): string {
  if (filter.kind === 'sampled') return `${filter.dimension}=${filter.value}`;
  const parts = [
    filter.modality && `modality=${filter.modality}`,
    filter.contextBucket && `context_bucket=${filter.contextBucket}`,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join('&') : 'all';
}

/** The key of every exact dataset a day is published for: unfiltered, each modality, each bucket, each pair. */
const EXACT: readonly string[] = [undefined, ...(Object.keys(MODALITY_SQL) as Modality[])].flatMap((modality) =>
  [undefined, ...CONTEXT_BUCKETS].map((contextBucket) => datasetKey({ kind: 'exact', modality, contextBucket })),
);

/** The key of every sampled dataset a week is published for. */
const SAMPLED: readonly string[] = [
  ...CATEGORIES.map((value) => datasetKey({ kind: 'sampled', dimension: 'category', value })),
  ...(['natural', 'programming'] as const).map((value) =>
    datasetKey({ kind: 'sampled', dimension: 'language_type', value }),
  ),
];

/** Per `rankings_daily` row: '' (any modality) and each modality value it matches. */
const ROW_MODALITIES = `array_remove(ARRAY['', ${Object.entries(MODALITY_SQL)
  .map(([m, sql]) => `CASE WHEN ${sql} THEN '${m}' END`)
  .join(', ')}], NULL)`;

/**
 * From `per_org (dataset, org_id, model, tokens)`: the cells of each dataset, a named model's
 * when it passes the dominance rule, else `other` (model NULL), each organization's share of a
 * cell clamped. Parameters $2 minimum organizations, $3 largest share, $4 clamp.
 */
const CELLS = `per_model AS (
  SELECT dataset, model FROM per_org WHERE model <> 'other' GROUP BY 1, 2
  HAVING COUNT(*) >= $2 AND MAX(tokens) <= $3::double precision * SUM(tokens)),
per_cell AS (
  SELECT p.dataset, m.model, p.org_id, SUM(p.tokens) AS tokens
  FROM per_org p LEFT JOIN per_model m ON m.dataset = p.dataset AND m.model = p.model GROUP BY 1, 2, 3)
SELECT dataset, model, SUM(LEAST(tokens, $4::bigint))::text AS tokens FROM per_cell GROUP BY 1, 2`;

/**
 * Each row is expanded into the exact datasets it belongs to (unfiltered, each modality it
 * matches, its context bucket, the pairs), keyed as {@link datasetKey} keys them.
 */
const DAY_CELLS = `WITH per_org AS (
  SELECT COALESCE(NULLIF(concat_ws('&', 'modality=' || NULLIF(m.modality, ''), 'context_bucket=' || NULLIF(b.bucket, '')), ''), 'all') AS dataset,
         d.org_id, d.model, SUM(d.tokens) AS tokens
  FROM rankings_daily d
  CROSS JOIN LATERAL unnest(${ROW_MODALITIES}) AS m(modality)
  CROSS JOIN LATERAL unnest(ARRAY['', d.context_bucket]) AS b(bucket)
  WHERE d.day = $1::date GROUP BY 1, 2, 3),
${CELLS}`;

/** A week's tags, each in its sampled dataset, keyed as {@link datasetKey} keys them. */
const WEEK_CELLS = `WITH per_org AS (
  SELECT t.dimension || '=' || t.value AS dataset, t.org_id, t.model, SUM(t.tokens) AS tokens
  FROM rankings_weekly_tags t WHERE t.week = $1::date GROUP BY 1, 2, 3),
${CELLS}`;

/** How one kind of unit is published: its cells' statement, its datasets, its clamp. */
interface UnitKind {
  kind: 'day' | 'week';
  sql: string;
  keys: readonly string[];
  clamp: number;
}

/** Publishes completed days and weeks of the installation scope, once each. */
export class RankingsPublisher {
  constructor(
    private readonly db: Database,
    private readonly opts: PublishOptions,
  ) {}

  /** The days and weeks that ended at least `publishDelayMs` before `now` and are not yet published. */
  async due(now: number): Promise<DueUnits> {
    const [first] = await this.db.query<{ first: Date | string | null }>(
      'SELECT MIN(created_at) AS first FROM generations',
    );
    if (!first?.first) return NOTHING_DUE;
    const firstDay = Math.max(FLOOR, dayOf(new Date(first.first).getTime()));
    const lastDay = dayOf(now - this.opts.publishDelayMs) - 1;
    const published = await this.db.query<{ kind: string; unit: string }>(
      `SELECT kind, to_char(unit, 'YYYY-MM-DD') AS unit FROM rankings_published_units WHERE unit >= $1::date`,
      [formatDay(weekStart(firstDay))],
    );
    const done = new Set(published.map((r) => `${r.kind} ${r.unit}`));
    const days: number[] = [];
    for (let d = firstDay; d <= lastDay; d++) if (!done.has(`day ${formatDay(d)}`)) days.push(d);
    const weeks: number[] = [];
    for (let w = weekStart(firstDay); w + 6 <= lastDay; w += 7) if (!done.has(`week ${formatDay(w)}`)) weeks.push(w);
    return { days, weeks, reroll: await this.staleDays([...new Set([...days, ...weeks.map((w) => w + 6)])]) };
  }

  /** Of `days`, those last rolled before their end plus the delay (or never). */
  private async staleDays(days: number[]): Promise<number[]> {
    if (days.length === 0) return [];
    const rows = await this.db.query<{ day: string; rolled_at: Date | string }>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, rolled_at FROM rankings_rollup_days WHERE day = ANY($1::date[])`,
      [days.map(formatDay)],
    );
    const rolled = new Map(rows.map((r) => [r.day, new Date(r.rolled_at).getTime()]));
    return days
      .filter((d) => (rolled.get(formatDay(d)) ?? -Infinity) < dayStartMs(d + 1) + this.opts.publishDelayMs)
      .sort((a, b) => a - b);
  }

  /** Publish the due units (each in its own transaction; one already published is left as it is). */
  async publish(due: DueUnits, at: Date): Promise<void> {
    const day: UnitKind = { kind: 'day', sql: DAY_CELLS, keys: EXACT, clamp: this.opts.clampTokens };
    const week: UnitKind = { kind: 'week', sql: WEEK_CELLS, keys: SAMPLED, clamp: 7 * this.opts.clampTokens };
    for (const unit of due.days) await this.db.transaction((tx) => this.publishUnit(tx, unit, at, day));
    for (const unit of due.weeks) await this.db.transaction((tx) => this.publishUnit(tx, unit, at, week));
  }

  private async publishUnit(tx: Queryable, unit: number, at: Date, how: UnitKind): Promise<void> {
    const { kind, sql, keys, clamp } = how;
    const date = formatDay(unit);
    const claimed = await tx.query(
      `INSERT INTO rankings_published_units (kind, unit, published_at) VALUES ($1, $2::date, $3) ON CONFLICT DO NOTHING RETURNING unit`,
      [kind, date, at.toISOString()],
    );
    if (claimed.length === 0) return;
    const o = this.opts;
    const cells = await tx.query<{ dataset: string; model: string | null; tokens: string }>(sql, [
      date,
      o.minOrganizations,
      o.maxOrgShare,
      clamp,
    ]);
    // Every dataset gets its `other` cell, even with nothing in it: noise alone then.
    const others = new Set(cells.filter((c) => c.model === null).map((c) => c.dataset));
    for (const key of keys) if (!others.has(key)) cells.push({ dataset: key, model: null, tokens: '0' });
    const scale = clamp / o.epsilon;
    const tokens = cells.map((c) => String(Number(c.tokens) + discreteLaplace(scale, o.uniform ?? secureUniform)));
    await tx.query(
      `INSERT INTO rankings_published (unit, dataset, model, tokens) SELECT $1::date, * FROM unnest($2::text[], $3::text[], $4::bigint[])`,
      [date, cells.map((c) => c.dataset), cells.map((c) => c.model), tokens],
    );
  }
}
