/**
 * The one SQL statement behind an answer: tokens per (date bucket, model) read from the rollup
 * tables only. Every fragment comes from the fixed tables below, chosen by validated enums;
 * every value is a bind parameter. In the installation scope a model whose organizations that
 * day (week, for sampled tags) number fewer than the threshold comes back as model NULL, which
 * the ranking counts in `other`.
 * @module
 */
import type { Queryable } from '../store/db';
import { formatDay } from './dates';
import type { DatasetFilter, Modality, Period, RankingsRequest, RankingsScope } from './types';

/** Tokens of one model (null: below the organization threshold) in one date bucket. */
export interface BucketTotal {
  date: string;
  model: string | null;
  tokens: string;
}

/** Facet conditions on `rankings_daily`, per `modality` value. */
const MODALITY_SQL: Readonly<Record<Modality, string>> = {
  text: `output_modality = 'text'`,
  image_output: `output_modality = 'image'`,
  image: 'image_input',
  audio: 'audio_input',
  tool_calling: 'tool_calling',
};

/** The date bucket of a row's `day` (or `week`) column; timestamps without zone, so no session time zone applies. */
function bucketSql(column: 'day' | 'week', period: Period): string {
  if (period === 'day') return column;
  return `date_trunc('${period}', ${column}::timestamp)::date`;
}

interface Source {
  table: string;
  column: 'day' | 'week';
  conditions: string[];
  params: unknown[];
}

function sourceOf(filter: DatasetFilter, params: unknown[]): Source {
  if (filter.kind === 'sampled') {
    params.push(filter.dimension, filter.value);
    return { table: 'rankings_weekly_tags', column: 'week', conditions: [`dimension = $${params.length - 1}`, `value = $${params.length}`], params };
  }
  const conditions: string[] = [];
  if (filter.modality) conditions.push(MODALITY_SQL[filter.modality]);
  if (filter.contextBucket) {
    params.push(filter.contextBucket);
    conditions.push(`context_bucket = $${params.length}`);
  }
  return { table: conditions.length > 0 ? 'rankings_daily' : 'rankings_daily_totals', column: 'day', conditions, params };
}

/**
 * Build the statement for a request in a scope.
 * @returns SQL and its parameters
 */
export function rankingsSql(req: RankingsRequest, scope: RankingsScope): { sql: string; params: unknown[] } {
  const params: unknown[] = [formatDay(req.startDay), formatDay(req.endDay)];
  const src = sourceOf(req.filter, params);
  const where = [`${src.column} >= $1::date`, `${src.column} <= $2::date`, ...src.conditions];
  const bucket = bucketSql(src.column, req.period);
  if (scope.kind === 'org') {
    params.push(scope.orgId);
    where.push(`org_id = $${params.length}::uuid`);
    return {
      sql: `SELECT to_char(${bucket}, 'YYYY-MM-DD') AS date, model, SUM(tokens)::text AS tokens
FROM ${src.table} WHERE ${where.join(' AND ')} GROUP BY 1, 2`,
      params,
    };
  }
  params.push(scope.minOrgs);
  const outer = bucketSql(src.column, req.period);
  return {
    sql: `SELECT to_char(${outer}, 'YYYY-MM-DD') AS date, CASE WHEN orgs >= $${params.length} THEN model END AS model, SUM(tokens)::text AS tokens
FROM (SELECT ${src.column}, model, SUM(tokens) AS tokens, COUNT(DISTINCT org_id) AS orgs
      FROM ${src.table} WHERE ${where.join(' AND ')} GROUP BY 1, 2) per_model
GROUP BY 1, 2`,
    params,
  };
}

/** Run the statement. */
export function queryBucketTotals(db: Queryable, req: RankingsRequest, scope: RankingsScope): Promise<BucketTotal[]> {
  const { sql, params } = rankingsSql(req, scope);
  return db.query<BucketTotal>(sql, params);
}
