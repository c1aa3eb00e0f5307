/**
 * Semantic checks of an analytics query that JSON Schema cannot express, collected all at once
 * (every problem in one 400), and the {@link QueryPlan} they produce: names mapped to catalog
 * entries, the window resolved (default the last 7 days), range limits per metric, dimension and
 * classifier, the order, and the `limit`/`group_limit` rules 1–4 of the specification.
 * @module
 */
import type { ValidationIssue } from '../errors';
import type { ClassifierRecord } from '../classifiers/types';
import {
  CLASSIFIER_MAX_DAYS,
  DEFAULT_WINDOW_MS,
  DIMENSION_BY_NAME,
  GRANULARITY_BY_NAME,
  METRIC_BY_NAME,
  MINUTE_MAX_WINDOW_MS,
  OPERATOR_BY_NAME,
  UNAVAILABLE_DIMENSIONS,
  UNAVAILABLE_METRICS,
  type DimensionDef,
  type MetricDef,
} from './catalog';
import {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  type OrderColumn,
  type PlannedClassifier,
  type PlannedFilter,
  type QueryInput,
  type QueryPlan,
} from './types';

const DAY_MS = 86_400_000;

/** What planning needs besides the body: the caller's organization, the time, and the classifier named (if any). */
export interface PlanContext {
  orgId: string;
  now: number;
  /** The classifier the body names, looked up in the caller's organization (null: none such). */
  classifier: ClassifierRecord | null;
}

/** Plan `input` or return every problem found. */
export function planQuery(input: QueryInput, ctx: PlanContext): { plan: QueryPlan } | { issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const add = (path: string, message: string) => issues.push({ path: `body.${path}`, message });
  const limits: Array<{ path: string; days: number }> = [];

  const limitOf = (path: string) => (def: { maxDays: number }, i: number) =>
    limits.push({ path: `${path}.${i}`, days: def.maxDays });
  const metrics = resolveNames(
    input.metrics,
    'metrics',
    METRIC_BY_NAME,
    UNAVAILABLE_METRICS,
    'metric',
    add,
    limitOf('metrics'),
  );
  const dimensions = resolveNames(
    input.dimensions ?? [],
    'dimensions',
    DIMENSION_BY_NAME,
    UNAVAILABLE_DIMENSIONS,
    'dimension',
    add,
    limitOf('dimensions'),
  );
  const filters = planFilters(input, add, limits);
  const granularity = input.granularity ? (GRANULARITY_BY_NAME.get(input.granularity) ?? null) : null;

  const { start, end } = resolveWindow(input, ctx.now, add);
  const classifier = planClassifier(input, ctx.classifier, dimensions, metrics, add, limits);
  const windowMs = end.getTime() - start.getTime();
  if (windowMs > 0) {
    for (const l of limits) {
      if (windowMs > l.days * DAY_MS) add(l.path, `allows a time_range of at most ${l.days} days`);
    }
    if (granularity?.name === 'minute' && windowMs > MINUTE_MAX_WINDOW_MS)
      add('granularity', 'minute is only allowed for a time_range of at most 3 hours');
  }
  const order = planOrder(input, metrics, dimensions, classifier, granularity !== null, add);
  if (issues.length > 0) return { issues };

  const hasGroups = dimensions.length > 0 || (classifier?.grouping ?? null) !== null;
  const buckets = granularity ? Math.ceil(windowMs / granularity.ms) + 1 : 1;
  let groupLimit: number | null = null;
  let raise: number | null = null;
  if (hasGroups) {
    if (input.group_limit !== undefined)
      groupLimit = input.group_limit; // rule 2 (rule 3: ignored without dimensions)
    else if (granularity) raise = buckets; // rules 1 and 4: every group keeps all its buckets
  }
  return {
    plan: {
      orgId: ctx.orgId,
      start,
      end,
      metrics,
      dimensions,
      filters,
      granularity,
      classifier,
      order: order as QueryPlan['order'],
      limit: input.limit ?? DEFAULT_LIMIT,
      groupLimit,
      raiseLimitToBuckets: raise === null ? null : Math.min(raise, MAX_LIMIT),
    },
  };
}

function resolveNames<T>(
  names: string[],
  path: string,
  table: ReadonlyMap<string, T>,
  unavailable: ReadonlySet<string>,
  kind: string,
  add: (path: string, message: string) => void,
  found: (def: T, index: number) => void,
): T[] {
  const out: T[] = [];
  const seen = new Set<string>();
  names.forEach((name, i) => {
    const def = table.get(name);
    if (seen.has(name)) add(`${path}.${i}`, `${kind} "${name}" is listed twice`);
    else if (def) {
      out.push(def);
      found(def, i);
    } else if (unavailable.has(name))
      add(`${path}.${i}`, `${kind} "${name}" is not available here: this gateway records no data for it`);
    else add(`${path}.${i}`, `unknown ${kind} "${name}"; GET /analytics/meta lists the ${kind}s`);
    seen.add(name);
  });
  return out;
}

/** ISO-8601 UTC with seconds is checked by the schema; here start < end and the default window. */
function resolveWindow(
  input: QueryInput,
  now: number,
  add: (path: string, message: string) => void,
): { start: Date; end: Date } {
  if (!input.time_range) return { start: new Date(now - DEFAULT_WINDOW_MS), end: new Date(now) };
  const start = new Date(input.time_range.start);
  const end = new Date(input.time_range.end);
  if (start.getTime() >= end.getTime()) add('time_range', 'start must be before end');
  return { start, end };
}

function planFilters(
  input: QueryInput,
  add: (path: string, message: string) => void,
  limits: Array<{ path: string; days: number }>,
): PlannedFilter[] {
  const out: PlannedFilter[] = [];
  (input.filters ?? []).forEach((f, i) => {
    const dimension = DIMENSION_BY_NAME.get(f.field);
    const operator = OPERATOR_BY_NAME.get(f.operator);
    const at = `filters.${i}`;
    if (!dimension) {
      add(
        `${at}.field`,
        UNAVAILABLE_DIMENSIONS.has(f.field)
          ? `dimension "${f.field}" is not available here`
          : `unknown dimension "${f.field}"`,
      );
      return;
    }
    if (!operator) return; // the schema's enum already reported it
    const isArray = Array.isArray(f.value);
    if (operator.valueType === 'array' && !isArray)
      return add(`${at}.value`, `must be an array for operator ${operator.name}`);
    if (operator.valueType === 'scalar' && isArray)
      return add(`${at}.value`, `must be a string or number for operator ${operator.name}`);
    if (f.include_unset !== undefined && operator.valueType !== 'array')
      return add(`${at}.include_unset`, 'applies only to the in and not_in operators');
    if (f.include_unset && !dimension.nullable)
      return add(`${at}.include_unset`, `dimension "${dimension.name}" has no unset value`);
    limits.push({ path: `${at}.field`, days: dimension.maxDays });
    const text = (v: string | number) => normaliseValue(dimension, v);
    out.push({
      dimension,
      operator,
      value: Array.isArray(f.value) ? f.value.map(text) : text(f.value),
      includeUnset: f.include_unset ?? false,
    });
  });
  return out;
}

/** Ids stored lower-case (key hashes, workspace UUIDs) match whatever case the filter uses. */
function normaliseValue(d: DimensionDef, v: string | number): string {
  const s = String(v);
  return d.name === 'api_key_id' || d.name === 'workspace' ? s.toLowerCase() : s;
}

function planClassifier(
  input: QueryInput,
  record: ClassifierRecord | null,
  dimensions: DimensionDef[],
  metrics: MetricDef[],
  add: (path: string, message: string) => void,
  limits: Array<{ path: string; days: number }>,
): PlannedClassifier | null {
  const cd = input.classifier_dimensions;
  const cf = input.classifier_filters;
  if (!cd && !cf) return null;
  const id = (cd ?? cf)!.classifier_id.toLowerCase();
  const where = cd ? 'classifier_dimensions' : 'classifier_filters';
  if (cd && cf && cf.classifier_id.toLowerCase() !== cd.classifier_id.toLowerCase()) {
    add('classifier_filters.classifier_id', 'must equal classifier_dimensions.classifier_id when both are given');
    return null;
  }
  limits.push({ path: `${where}.classifier_id`, days: CLASSIFIER_MAX_DAYS });
  if (!record || !record.active) {
    add(`${where}.classifier_id`, 'no active classifier with this id in the organization');
    return null;
  }
  const known = new Set(record.dimensions.map((d) => d.name));
  const taken = new Set<string>([...dimensions.map((d) => d.name), ...metrics.map((m) => m.name), 'user_email']);
  let grouping: PlannedClassifier['grouping'] = null;
  if (cd) {
    const names = cd.dimension_names ?? [];
    names.forEach((n, i) => {
      if (!known.has(n)) add(`classifier_dimensions.dimension_names.${i}`, `classifier has no dimension "${n}"`);
      else if (taken.has(n))
        add(
          `classifier_dimensions.dimension_names.${i}`,
          `"${n}" is also a requested dimension or metric; rename the classifier dimension`,
        );
    });
    grouping = names.length > 0 ? { mode: 'named', names } : { mode: 'pairs' };
  }
  const filters = (cf?.filters ?? []).map((f, i) => {
    if (!known.has(f.field)) add(`classifier_filters.filters.${i}.field`, `classifier has no dimension "${f.field}"`);
    const isArray = Array.isArray(f.value);
    if ((f.operator === 'in' || f.operator === 'not_in') !== isArray)
      add(
        `classifier_filters.filters.${i}.value`,
        `must be ${isArray ? 'a string' : 'an array'} for operator ${f.operator}`,
      );
    return { dimension: f.field, operator: f.operator, value: f.value };
  });
  return { classifierId: id, grouping, includeNulls: cd?.include_nulls ?? false, filters };
}

function planOrder(
  input: QueryInput,
  metrics: MetricDef[],
  dimensions: DimensionDef[],
  classifier: PlannedClassifier | null,
  timed: boolean,
  add: (path: string, message: string) => void,
): { column: OrderColumn; direction: 'asc' | 'desc' } | null {
  const ob = input.order_by;
  if (!ob) {
    if (timed) return { column: { kind: 'time' }, direction: 'desc' };
    return { column: { kind: 'metric', index: 0 }, direction: 'desc' };
  }
  const f = ob.field;
  const m = metrics.findIndex((x) => x.name === f);
  if (m >= 0) return { column: { kind: 'metric', index: m }, direction: ob.direction };
  if (f === 'request_count') return { column: { kind: 'request_count' }, direction: ob.direction };
  const d = dimensions.findIndex((x) => x.name === f);
  if (d >= 0) return { column: { kind: 'dimension', index: d }, direction: ob.direction };
  const g = input.granularity;
  if (timed && (f === 'date' || f === `date__${g}`)) return { column: { kind: 'time' }, direction: ob.direction };
  const grouping = classifier?.grouping;
  if (grouping?.mode === 'named') {
    const t = grouping.names.indexOf(f);
    if (t >= 0) return { column: { kind: 'tag', index: t }, direction: ob.direction };
  }
  if (grouping?.mode === 'pairs' && (f === 'clf_dimension_name' || f === 'clf_dimension_value')) {
    return { column: { kind: 'tag', index: f === 'clf_dimension_name' ? 0 : 1 }, direction: ob.direction };
  }
  add(
    'order_by.field',
    'must be a requested metric, request_count, a requested dimension, or "date" with a granularity',
  );
  return null;
}
