/**
 * Runs analytics queries: plans (every problem → one 400), compiles to one statement, runs it in
 * a read-only transaction with `statement_timeout` set locally so Postgres itself cancels a query
 * past the configured time (SQLSTATE 57014 → 408), and shapes the rows: time buckets as ISO-8601
 * UTC with milliseconds, key and workspace names in place of their ids, the key creator's email,
 * and a warning for each label that could not be resolved.
 * @module
 */
import { RequestTimeoutError, ValidationError } from '../errors';
import type { Database } from '../store/db';
import type { Metrics } from '../observability/metrics';
import { findClassifier } from '../classifiers/repository';
import { compileQuery, type CompiledQuery, type OutputColumn } from './compile';
import { planQuery } from './plan';
import { roundUsd } from '../catalog/usd';
import type { QueryInput } from './types';

/** Postgres's "canceling statement due to statement timeout". */
const QUERY_CANCELED = '57014';
/** Warnings listed at most (a query over many unresolvable ids must not grow the answer unboundedly). */
const MAX_WARNINGS = 20;

type Row = Record<string, unknown>;
/** What pg and PGlite return for the scalar columns a query selects (ids and labels as text, timestamps as Dates). */
type Scalar = string | number | bigint | boolean | Date;

/** The `POST /analytics/query` body's `data`. */
export interface AnalyticsResult {
  data: Row[];
  metadata: { query_time_ms: number; row_count: number; truncated: boolean };
  warnings?: string[];
}

/** Options of {@link AnalyticsService}. */
export interface AnalyticsOptions {
  timeoutMs: number;
  clock: () => number;
  /** Read the hourly rollup where it can answer (default true); raw rows otherwise. */
  rollup?: boolean;
  metrics?: Metrics;
}

/** Analytics over the caller's organization's usage records. */
export class AnalyticsService {
  constructor(
    private readonly db: Database,
    private readonly opts: AnalyticsOptions,
  ) {}

  /** Validate, plan and run `input` for organization `orgId`. */
  async query(orgId: string, input: QueryInput): Promise<AnalyticsResult> {
    try {
      const result = await this.answer(orgId, input);
      this.opts.metrics?.analyticsQueries.inc({ outcome: 'ok' });
      return result;
    } catch (err) {
      const outcome =
        err instanceof ValidationError ? 'invalid' : err instanceof RequestTimeoutError ? 'timeout' : 'failed';
      this.opts.metrics?.analyticsQueries.inc({ outcome });
      throw err;
    }
  }

  private async answer(orgId: string, input: QueryInput): Promise<AnalyticsResult> {
    const classifierId = input.classifier_dimensions?.classifier_id ?? input.classifier_filters?.classifier_id;
    const classifier = classifierId ? await findClassifier(this.db, orgId, classifierId) : null;
    const planned = planQuery(input, { orgId, now: this.opts.clock(), classifier });
    if ('issues' in planned) throw new ValidationError(planned.issues);
    const compiled = compileQuery(planned.plan, this.opts.rollup ?? true);
    const started = performance.now();
    const rows = await this.run(compiled);
    const elapsed = performance.now() - started;
    return shape(compiled, rows, Math.round(elapsed));
  }

  /**
   * One statement under a local `statement_timeout`: Postgres cancels it in the server at the
   * deadline. Embedded PGlite accepts the setting but cannot interrupt a running statement (no
   * timer signal in WebAssembly), so a statement that finished past the deadline is answered 408
   * all the same, and the two engines agree on the outcome.
   */
  private async run(q: CompiledQuery): Promise<Row[]> {
    const { timeoutMs } = this.opts;
    const started = performance.now();
    try {
      const rows = await this.db.transaction(async (tx) => {
        await tx.query('SET TRANSACTION READ ONLY');
        await tx.query(`SELECT set_config('statement_timeout', $1, true)`, [String(timeoutMs)]);
        return tx.query<Row>(q.sql, q.params);
      });
      if (performance.now() - started > timeoutMs) throw new RequestTimeoutError();
      return rows;
    } catch (err) {
      if ((err as { code?: string }).code === QUERY_CANCELED) throw new RequestTimeoutError();
      throw err;
    }
  }
}

function isoOf(v: Scalar | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const d = v instanceof Date ? v : new Date(String(v));
  return d.toISOString();
}

function shape(q: CompiledQuery, rows: Row[], ms: number): AnalyticsResult {
  const warnings = new Set<string>();
  const warn = (w: string) => {
    if (warnings.size < MAX_WARNINGS) warnings.add(w);
  };
  const data = rows.map((r) => {
    const out: Row = {};
    for (const c of q.columns) {
      out[c.key] = cell(c, r, warn);
      if (c.labels === 'user')
        out.user_email = typeof r[`${c.alias}member`] === 'string' ? (r[`${c.alias}email`] ?? null) : null;
    }
    return out;
  });
  const total = rows.length > 0 ? Number(rows[0]!.total_) : 0;
  const cut = rows.length > 0 && rows[0]!.cut_ === true;
  const result: AnalyticsResult = {
    data,
    metadata: { query_time_ms: ms, row_count: data.length, truncated: total > data.length || cut },
  };
  if (warnings.size > 0) result.warnings = [...warnings];
  return result;
}

function cell(c: OutputColumn, r: Row, warn: (w: string) => void): unknown {
  const v = r[c.alias] as Scalar | null | undefined;
  if (c.kind === 'time') return isoOf(v);
  if (c.kind === 'metric') return v === null || v === undefined ? null : c.usd ? roundUsd(Number(v)) : Number(v);
  if (v === null || v === undefined) return null;
  switch (c.labels) {
    case 'api_key': {
      const name = r[`${c.alias}label`];
      if (typeof name === 'string') return name;
      warn(`Could not resolve api_key_id hash: ${String(v).slice(0, 12)}…`);
      return v;
    }
    case 'workspace': {
      const name = r[`${c.alias}label`];
      if (typeof name === 'string') return name;
      warn(`Could not resolve workspace: ${String(v)}`);
      return v;
    }
    case 'user': {
      if (typeof r[`${c.alias}member`] !== 'string') warn(`Could not resolve user: ${String(v)}`);
      return v;
    }
    case null:
    case undefined:
    default:
      return v;
  }
}
