/**
 * The analytics query compiler: a {@link QueryPlan} becomes ONE parameterised statement. Every
 * SQL fragment comes from the catalog's fixed tables (metric aggregates, dimension expressions,
 * operators, `date_trunc` units); every value from the request (organization, window, filter
 * values, classifier id and names, limits) is a bind parameter. The statement is always scoped to
 * the caller's organization, including each label it joins (key names, workspace names, users).
 * @module
 */
import { MAX_LIMIT, type OrderColumn, type QueryPlan } from './types';
import { Params } from './params';
import { histCanAnswer, histSource, rollupCanAnswer, rollupSource } from './rollup-source';
import { bucketValueSql } from './histogram';

/** An output column: its SQL alias and the key it has in result rows. */
export interface OutputColumn {
  alias: string;
  key: string;
  kind: 'time' | 'dimension' | 'tag' | 'metric';
  /** For metrics: a USD amount, rounded to the precision of money on the way out. */
  usd?: boolean;
  /** For dimensions: which label the row shows instead of the raw value. */
  labels?: 'api_key' | 'workspace' | 'user' | null;
}

/** The compiled statement. */
export interface CompiledQuery {
  sql: string;
  params: unknown[];
  columns: OutputColumn[];
}

/**
 * Compile `plan` over raw rows of `generations`, or (`useRollup`, when {@link rollupCanAnswer})
 * over the hourly rollup plus raw rows for the hours it does not hold, or (`useRollup`, when
 * {@link histCanAnswer}) over the hourly latency histograms plus raw rows bucketed alike.
 */
export function compileQuery(plan: QueryPlan, useRollup = false): CompiledQuery {
  const p = new Params();
  const org = p.add(plan.orgId);
  const hist = useRollup && histCanAnswer(plan);
  const rollup = !hist && useRollup && rollupCanAnswer(plan);
  const columns: OutputColumn[] = [];
  const select: string[] = [];
  /** The grouping expressions, in `select` order. */
  const groupExprs: string[] = [];
  const joins: string[] = [];
  let from = 'generations g';
  const where: string[] = [];
  if (hist) {
    from = histSource(p, org, plan);
  } else if (rollup) {
    from = rollupSource(p, org, plan);
  } else {
    where.push(`g.org_id = ${org}`, `g.created_at >= ${p.add(plan.start)}`, `g.created_at < ${p.add(plan.end)}`);
  }
  const time = rollup || hist ? 'r.ts' : 'g.created_at';
  const dimSql = (d: QueryPlan['dimensions'][number]) =>
    hist ? (d.hist as string) : rollup ? (d.rollup as string) : d.raw;

  if (plan.granularity) {
    // The bucket in UTC whatever the session's time zone; week = ISO week (Monday).
    groupExprs.push(`(date_trunc('${plan.granularity.unit}', ${time} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`);
    select.push(`${groupExprs[groupExprs.length - 1]} AS t_`);
    columns.push({ alias: 't_', key: `date__${plan.granularity.name}`, kind: 'time' });
  }
  plan.dimensions.forEach((d, i) => {
    groupExprs.push(dimSql(d));
    select.push(`${dimSql(d)} AS d${i}_`);
    columns.push({ alias: `d${i}_`, key: d.name, kind: 'dimension', labels: d.labels });
  });
  const needsKey = plan.dimensions.some((d) => d.needsKey) || plan.filters.some((f) => f.dimension.needsKey);
  if (needsKey) joins.push(`LEFT JOIN api_keys k ON k.hash = g.key_hash AND k.org_id = g.org_id`);

  const c = plan.classifier;
  if (c) {
    const cid = p.add(c.classifierId);
    const tagJoin = (alias: string, name: string | null) => {
      const byName = name === null ? '' : ` AND ${alias}.dimension = ${p.add(name)}`;
      const nulls = c.includeNulls ? '' : ` AND ${alias}.value IS NOT NULL`;
      joins.push(
        `JOIN generation_tags ${alias} ON ${alias}.generation_id = g.id AND ${alias}.classifier_id = ${cid} AND ${alias}.org_id = ${org}${byName}${nulls}`,
      );
    };
    if (c.grouping?.mode === 'named') {
      c.grouping.names.forEach((name, i) => {
        tagJoin(`c${i}`, name);
        select.push(`c${i}.value AS c${i}_`);
        columns.push({ alias: `c${i}_`, key: name, kind: 'tag' });
      });
    } else if (c.grouping?.mode === 'pairs') {
      tagJoin('c0', null);
      select.push(`c0.dimension AS c0_`, `c0.value AS c1_`);
      columns.push(
        { alias: 'c0_', key: 'clf_dimension_name', kind: 'tag' },
        { alias: 'c1_', key: 'clf_dimension_value', kind: 'tag' },
      );
    }
    c.filters.forEach((f) => {
      const many = f.operator === 'in' || f.operator === 'not_in';
      const v = p.add(f.value);
      const test = many ? `cf.value = ANY(${v}::text[])` : `cf.value = ${v}`;
      const cond = f.operator === 'eq' || f.operator === 'in' ? test : `cf.value IS NOT NULL AND NOT (${test})`;
      where.push(
        `EXISTS (SELECT 1 FROM generation_tags cf WHERE cf.generation_id = g.id AND cf.classifier_id = ${cid} AND cf.org_id = ${org} AND cf.dimension = ${p.add(f.dimension)} AND ${cond})`,
      );
    });
  }

  for (const f of plan.filters) where.push(filterSql(f, dimSql(f.dimension), p));

  const groupCount = select.length;
  plan.metrics.forEach((m, i) => {
    select.push(`${rollup ? m.rollup : m.raw} AS m${i}_`);
    columns.push({ alias: `m${i}_`, key: m.name, kind: 'metric', usd: m.format === 'currency' });
  });
  if (plan.order.column.kind === 'request_count' && !plan.metrics.some((m) => m.name === 'request_count'))
    select.push(rollup ? `coalesce(sum(r.request_count), 0)::float8 AS rc_` : `count(*)::float8 AS rc_`);

  const groupBy = groupCount > 0 ? ` GROUP BY ${Array.from({ length: groupCount }, (_, i) => i + 1).join(', ')}` : '';
  const whereSql = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  const base = hist
    ? histBase(plan, select.slice(0, groupCount), groupExprs, columns, `FROM ${from}${whereSql}`)
    : `SELECT ${select.join(', ')} FROM ${from} ${joins.join(' ')}${whereSql}${groupBy}`;

  const partition = columns.filter((x) => x.kind === 'dimension' || x.kind === 'tag').map((x) => `b.${x.alias}`);
  const orderBy = orderSql(plan, columns);
  let ranked = 'base';
  let cut = 'false';
  let keep = 'true';
  if (plan.groupLimit !== null && partition.length > 0) {
    const gl = p.add(plan.groupLimit);
    ranked = `(SELECT b.*, row_number() OVER (PARTITION BY ${partition.join(', ')} ORDER BY ${orderBy('b')}) AS rn_, count(*) OVER (PARTITION BY ${partition.join(', ')}) AS gsize_ FROM base b)`;
    cut = `bool_or(x.gsize_ > ${gl}) OVER ()`;
    keep = `x.rn_ <= ${gl}`;
  }

  const labelSelect: string[] = [];
  const labelJoins: string[] = [];
  for (const col of columns) {
    if (col.labels === 'api_key') {
      labelJoins.push(`LEFT JOIN api_keys lk ON lk.org_id = ${org} AND lk.hash = x.${col.alias}`);
      labelSelect.push(`lk.name AS ${col.alias}label`);
    } else if (col.labels === 'workspace') {
      labelJoins.push(`LEFT JOIN workspaces lw ON lw.org_id = ${org} AND lw.id::text = x.${col.alias}`);
      labelSelect.push(`lw.name AS ${col.alias}label`);
    } else if (col.labels === 'user') {
      labelJoins.push(
        `LEFT JOIN organization_members lm ON lm.org_id = ${org} AND lm.user_id = x.${col.alias} LEFT JOIN users lu ON lu.id = lm.user_id`,
      );
      labelSelect.push(`lm.user_id AS ${col.alias}member`, `lu.email AS ${col.alias}email`);
    }
  }

  let limit = p.add(plan.limit);
  if (plan.raiseLimitToBuckets !== null && partition.length > 0) {
    // Rule 4: room for every (group, bucket) combination, never past the largest limit.
    const groups = `(SELECT count(*) FROM (SELECT DISTINCT ${partition.join(', ')} FROM base b) s)`;
    limit = `LEAST(${p.add(MAX_LIMIT)}::bigint, GREATEST(${limit}::bigint, ${p.add(plan.raiseLimitToBuckets)}::bigint * ${groups}))`;
  }
  const sql =
    `WITH base AS (${base}) ` +
    `SELECT x.*, ${[...labelSelect, 'count(*) OVER () AS total_', `${cut} AS cut_`].join(', ')} ` +
    `FROM ${ranked} x ${labelJoins.join(' ')} WHERE ${keep} ORDER BY ${orderBy('x')} LIMIT ${limit}`;
  return { sql, params: p.values, columns };
}

/**
 * The base query over histogram entries: counts summed per group, kind and bucket, each
 * bucket's running count within its group and kind, then per group the value of the first bucket
 * whose running count reaches the fraction p of the total (the bucket of the smallest value with
 * at least p of the values at or below it, as `percentile_disc`).
 */
function histBase(
  plan: QueryPlan,
  groupSelect: string[],
  groupExprs: string[],
  columns: OutputColumn[],
  fromWhere: string,
): string {
  const aliases = columns.filter((c) => c.kind !== 'metric').map((c) => c.alias);
  const partition = [...groupExprs, 'r.kind'].join(', ');
  const inner =
    `SELECT ${[
      ...groupSelect,
      'r.kind',
      'r.bucket',
      'sum(r.n) AS n_',
      `sum(sum(r.n)) OVER (PARTITION BY ${partition} ORDER BY r.bucket) AS cum_`,
      `sum(sum(r.n)) OVER (PARTITION BY ${partition}) AS tot_`,
    ].join(', ')} ` + `${fromWhere} GROUP BY ${[...groupExprs, 'r.kind', 'r.bucket'].join(', ')}`;
  const metrics = plan.metrics.map((m, i) => {
    const h = m.hist as NonNullable<typeof m.hist>;
    return `${bucketValueSql(`min(h.bucket) FILTER (WHERE h.kind = ${h.kind} AND h.cum_ >= ${h.p} * h.tot_)`)} AS m${i}_`;
  });
  const groupBy = aliases.length > 0 ? ` GROUP BY ${aliases.map((a) => `h.${a}`).join(', ')}` : '';
  return `SELECT ${[...aliases.map((a) => `h.${a}`), ...metrics].join(', ')} FROM (${inner}) h${groupBy}`;
}

function filterSql(f: QueryPlan['filters'][number], e: string, p: Params): string {
  if (f.operator.name === 'in' || f.operator.name === 'not_in') {
    const test = `${e} = ANY(${p.add(f.value)}::text[])`;
    if (f.operator.name === 'in') return f.includeUnset ? `(${test} OR ${e} IS NULL)` : `(${test})`;
    return f.includeUnset ? `(${e} IS NULL OR NOT (${test}))` : `(${e} IS NOT NULL AND NOT (${test}))`;
  }
  return `(${e} ${f.operator.sql} ${p.add(f.value)})`;
}

/** ORDER BY over alias `t`: the requested column first, then every grouping column for a stable order. */
function orderSql(plan: QueryPlan, columns: OutputColumn[]): (t: string) => string {
  const aliasOf = (c: OrderColumn): string => {
    switch (c.kind) {
      case 'time':
        return 't_';
      case 'metric':
        return `m${c.index}_`;
      case 'dimension':
        return `d${c.index}_`;
      case 'tag':
        return `c${c.index}_`;
      case 'request_count': {
        const i = plan.metrics.findIndex((m) => m.name === 'request_count');
        return i >= 0 ? `m${i}_` : 'rc_';
      }
    }
  };
  const first = aliasOf(plan.order.column);
  const dir = plan.order.direction === 'asc' ? 'ASC' : 'DESC';
  const rest = columns.filter((c) => c.kind !== 'metric' && c.alias !== first).map((c) => c.alias);
  return (t) => [`${t}.${first} ${dir} NULLS LAST`, ...rest.map((a) => `${t}.${a} ASC NULLS LAST`)].join(', ');
}
