/**
 * The analytics query as validated by `analytics.query.body` (wire names), and the plan the
 * semantic checks turn it into: catalog entries instead of names, a resolved window and limits.
 * @module
 */
import type { DimensionDef, GranularityDef, MetricDef, OperatorDef } from './catalog';

/** One `filters` item. */
export interface FilterInput {
  field: string;
  operator: string;
  value: string | number | Array<string | number>;
  include_unset?: boolean;
}

/** `req.valid.body` of `POST /analytics/query`. */
export interface QueryInput {
  metrics: string[];
  dimensions?: string[];
  filters?: FilterInput[];
  granularity?: string;
  time_range?: { start: string; end: string };
  limit?: number;
  group_limit?: number;
  order_by?: { field: string; direction: 'asc' | 'desc' };
  classifier_dimensions?: { classifier_id: string; dimension_names?: string[]; include_nulls?: boolean };
  classifier_filters?: {
    classifier_id: string;
    filters: Array<{ field: string; operator: 'eq' | 'neq' | 'in' | 'not_in'; value: string | string[] }>;
  };
}

/** A filter on a standard dimension, values as text (every dimension expression is text). */
export interface PlannedFilter {
  dimension: DimensionDef;
  operator: OperatorDef;
  value: string | string[];
  includeUnset: boolean;
}

/** A classifier tag filter. */
export interface PlannedTagFilter {
  dimension: string;
  operator: 'eq' | 'neq' | 'in' | 'not_in';
  value: string | string[];
}

/**
 * Classifier grouping: `named` gives one column per listed name; `pairs` gives the
 * `clf_dimension_name`/`clf_dimension_value` columns (one row per name/value pair).
 */
export interface PlannedClassifier {
  classifierId: string;
  grouping: { mode: 'named'; names: string[] } | { mode: 'pairs' } | null;
  includeNulls: boolean;
  filters: PlannedTagFilter[];
}

/** Where an ordered output column comes from. */
export type OrderColumn =
  | { kind: 'metric'; index: number }
  | { kind: 'dimension'; index: number }
  | { kind: 'tag'; index: number }
  | { kind: 'time' }
  | { kind: 'request_count' };

/** Everything the compiler needs; built only from the catalog and validated values. */
export interface QueryPlan {
  orgId: string;
  start: Date;
  end: Date;
  metrics: MetricDef[];
  dimensions: DimensionDef[];
  filters: PlannedFilter[];
  granularity: GranularityDef | null;
  classifier: PlannedClassifier | null;
  order: { column: OrderColumn; direction: 'asc' | 'desc' };
  limit: number;
  /** Rows kept per distinct dimension combination; null = no per-group cut. */
  groupLimit: number | null;
  /** Rule 4: raise `limit` to (time buckets × groups), capped at {@link MAX_LIMIT}. */
  raiseLimitToBuckets: number | null;
}

/** The largest `limit` (and the cap of a raised one). */
export const MAX_LIMIT = 10_000;
/** Default `limit`. */
export const DEFAULT_LIMIT = 1000;
