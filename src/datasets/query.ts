/**
 * The one SQL statement behind an answer, reading the rollup tables only: tokens per (date
 * bucket, permaslug), then row rules 1–3 in the same statement, so only the answer's rows leave
 * the database: per date the top 50 public models by tokens (ties by permaslug in code-point
 * order, `COLLATE "C"`), and one `other` row with the rest (models past the top 50, non-public
 * ones, and in the installation scope the published `other` cells of models the dominance rule
 * hid), omitted when zero or below.
 *
 * Unfiltered week and month queries in the organization scope read whole weeks and months from
 * `rankings_period_totals` and only the partial ones at the window's edges from the daily
 * totals. Every fragment comes from the fixed tables below, chosen by validated enums; every
 * value, the catalog's names included, is a bind parameter.
 * @module
 */
import type { Queryable } from '../store/db';
import { formatDay, monthStart, weekStart } from './dates';
import { datasetKey, MODALITY_SQL } from './publish';
import type { DatasetFilter, Period, RankingRow, RankingsRequest, RankingsScope } from './types';

/** Real models per date before the rest becomes `other`. */
export const TOP_MODELS = 50;
/** The reserved permaslug of the long tail; a model named so is counted there. */
export const OTHER = 'other';

/** How the catalog names models: ids (as usage records store them), permaslugs, public flags. */
export interface CatalogFaces {
  ids: string[];
  permaslugs: string[];
  public: boolean[];
  /**
   * Model ids whose tokens may land under another name or in `other` (renamed or non-public
   * models, the ids they are renamed to, and `other` itself). Every other model keeps its own
   * row, which is what lets a query skip models ranked too low to reach the top 50.
   */
  special: string[];
}

/** The date bucket of a unit column (`day`, `week`); timestamps without zone, so no session time zone applies. */
function bucketSql(column: string, period: Period): string {
  return period === 'day' ? column : `date_trunc('${period}', ${column}::timestamp)::date`;
}

/** Collects bind parameters; `add` answers the placeholder. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** A table of units (days or weeks) with tokens per organization and model, and its conditions. */
interface Source {
  table: string;
  unit: 'day' | 'week';
  where: string[];
}

function sourceOf(req: RankingsRequest, filter: DatasetFilter, p: Params): Source {
  if (filter.kind === 'sampled') {
    return {
      table: 'rankings_weekly_tags',
      unit: 'week',
      where: [`dimension = ${p.add(filter.dimension)}`, `value = ${p.add(filter.value)}`],
    };
  }
  const where: string[] = [];
  if (filter.modality) where.push(MODALITY_SQL[filter.modality]);
  if (filter.contextBucket) where.push(`context_bucket = ${p.add(filter.contextBucket)}`);
  return { table: where.length > 0 ? 'rankings_daily' : 'rankings_daily_totals', unit: 'day', where };
}

/** The slug of a row: its permaslug, or NULL when it counts in `other`. */
function slugSql(other: string): string {
  return `CASE WHEN model IS NULL OR f.public = false OR COALESCE(f.permaslug, model) = ${other} THEN NULL ELSE COALESCE(f.permaslug, model) END`;
}

/** Whole period buckets inside the window, as [first bucket start, last bucket start], or null. */
function wholeBuckets(req: RankingsRequest): [number, number] | null {
  if (req.period === 'day') return null;
  const start = req.period === 'week' ? weekStart : monthStart;
  const next = (day: number) => (req.period === 'week' ? day + 7 : start(start(day) + 31));
  const first = start(req.startDay) === req.startDay ? req.startDay : next(req.startDay);
  let last = start(req.endDay);
  if (next(last) - 1 !== req.endDay) last = start(last - 1);
  return first <= last ? [first, last] : null;
}

/** Rows (b, model, tokens) of the organization scope; whole weeks/months from the period table. */
function orgRows(req: RankingsRequest, src: Source, orgId: string, faces: CatalogFaces, p: Params): string {
  const orgParam = p.add(orgId);
  const org = `org_id = ${orgParam}::uuid`;
  const bucket = bucketSql(src.unit, req.period);
  const whole = src.table === 'rankings_daily_totals' ? wholeBuckets(req) : null;
  const [start, end] = [p.add(formatDay(req.startDay)), p.add(formatDay(req.endDay))];
  if (!whole) {
    return `SELECT ${bucket} AS b, model, tokens FROM ${src.table} WHERE ${[org, `${src.unit} >= ${start}::date`, `${src.unit} <= ${end}::date`, ...src.where].join(' AND ')}`;
  }
  const afterLast = req.period === 'week' ? whole[1] + 7 : monthStart(whole[1] + 31);
  const [first, last, after] = [p.add(formatDay(whole[0])), p.add(formatDay(whole[1])), p.add(formatDay(afterLast))];
  const period = p.add(req.period);
  const inWhole = (t: string) =>
    `${t}.org_id = ${orgParam}::uuid AND ${t}.period = ${period} AND ${t}.bucket >= ${first}::date AND ${t}.bucket <= ${last}::date`;
  // Only rows that can reach the top 50: a model ranked below 50 + |special| in its bucket has at
  // least that many models with strictly more tokens (rank() gives ties one rank), of which at
  // most |special| can leave for another name; special models are always read. The bucket's sum
  // less the rows read comes back as model NULL, counted in `other`.
  const cut = p.add(TOP_MODELS + faces.special.length);
  const special = p.add(faces.special);
  const read = `SELECT bucket, model, tokens FROM rankings_period_totals t WHERE ${inWhole('t')} AND t.rank <= ${cut}
  UNION ALL SELECT bucket, model, tokens FROM rankings_period_totals t WHERE ${inWhole('t')} AND t.rank > ${cut} AND t.model = ANY(${special}::text[])`;
  // The edges as two plain day ranges, so each is an index range scan.
  return `SELECT bucket AS b, model, tokens FROM (${read}) top_rows
UNION ALL SELECT s.bucket, NULL::text, s.tokens - COALESCE(r.tokens, 0) FROM rankings_period_sums s
  LEFT JOIN (SELECT bucket, SUM(tokens) AS tokens FROM (${read}) read_rows GROUP BY 1) r ON r.bucket = s.bucket WHERE ${inWhole('s')}
UNION ALL SELECT ${bucket} AS b, model, tokens FROM rankings_daily_totals WHERE ${org} AND day >= ${start}::date AND day < ${first}::date
UNION ALL SELECT ${bucket} AS b, model, tokens FROM rankings_daily_totals WHERE ${org} AND day >= ${after}::date AND day <= ${end}::date`;
}

/**
 * Rows (b, model, tokens) of the installation scope: the published cells only (publish.ts), so
 * days not yet published (today among them) have no rows and published ones never change.
 */
function installationRows(req: RankingsRequest, p: Params): string {
  return `SELECT ${bucketSql('unit', req.period)} AS b, model, tokens FROM rankings_published
WHERE dataset = ${p.add(datasetKey(req.filter))} AND unit >= ${p.add(formatDay(req.startDay))}::date AND unit <= ${p.add(formatDay(req.endDay))}::date`;
}

/**
 * Build the statement for a request in a scope.
 * @returns SQL and its parameters
 */
export function rankingsSql(
  req: RankingsRequest,
  scope: RankingsScope,
  faces: CatalogFaces,
): { sql: string; params: unknown[] } {
  const p = new Params();
  const rows =
    scope.kind === 'org' ? orgRows(req, sourceOf(req, req.filter, p), scope.orgId, faces, p) : installationRows(req, p);
  const [ids, slugs, pub, other, top] = [
    p.add(faces.ids),
    p.add(faces.permaslugs),
    p.add(faces.public),
    p.add(OTHER),
    p.add(TOP_MODELS),
  ];
  return {
    sql: `WITH per_slug AS (
  SELECT b, ${slugSql(other)} AS slug, SUM(tokens)::bigint AS tokens
  FROM (${rows}) r LEFT JOIN unnest(${ids}::text[], ${slugs}::text[], ${pub}::boolean[]) AS f(id, permaslug, public) ON f.id = r.model
  GROUP BY 1, 2),
ranked AS (
  SELECT b, slug, tokens, row_number() OVER (PARTITION BY b ORDER BY slug IS NULL, tokens DESC, slug COLLATE "C") AS rank
  FROM per_slug WHERE tokens > 0)
SELECT to_char(b, 'YYYY-MM-DD') AS date, slug AS model_permaslug, tokens::text AS total_tokens, rank FROM ranked WHERE slug IS NOT NULL AND rank <= ${top}
UNION ALL
SELECT to_char(b, 'YYYY-MM-DD'), ${other}, SUM(tokens)::text, ${top} + 1 FROM ranked WHERE slug IS NULL OR rank > ${top} GROUP BY b
ORDER BY 1, 4`,
    params: p.values,
  };
}

/** Run the statement: the answer's rows, in order. */
export async function queryRankings(
  db: Queryable,
  req: RankingsRequest,
  scope: RankingsScope,
  faces: CatalogFaces,
): Promise<RankingRow[]> {
  const { sql, params } = rankingsSql(req, scope, faces);
  const rows = await db.query<RankingRow & { rank: unknown }>(sql, params);
  return rows.map((r) => ({ date: r.date, model_permaslug: r.model_permaslug, total_tokens: r.total_tokens }));
}
