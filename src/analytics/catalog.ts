/**
 * The fixed tables analytics is built on: every metric, dimension, operator and granularity the
 * query accepts, each with the SQL fragment it maps to. User input only ever selects entries of
 * these tables by name; their SQL is the code's own, so no request text reaches the statement
 * except as a bind parameter. Names the hosted service knows but this gateway records no source
 * for are listed separately, so a query naming one is told it is not available here.
 * @module
 */
import { HIST_KIND, type HistKind } from './histogram';

/** How a client should render a metric (the hosted service's vocabulary). */
export type DisplayFormat = 'number' | 'currency' | 'percent' | 'latency' | 'throughput';

/** One metric: its aggregate over raw `generations g` rows, and its longest window in days. */
export interface MetricDef {
  name: string;
  label: string;
  isRate: boolean;
  format: DisplayFormat;
  maxDays: 31 | 365;
  /** Aggregate over raw rows (alias `g`); always cast to float8 so both drivers return a JS number. */
  raw: string;
  /** The same aggregate over `usage_rollup_hourly r`, when the rollup can answer it. */
  rollup?: string;
  /** A percentile the hourly histograms can answer (within their stated error): which histogram and which fraction. */
  hist?: { kind: HistKind; p: number };
}

const BYOK_USD = `coalesce(sum(g.upstream_cost_usd) FILTER (WHERE g.is_byok), 0)`;
const THROUGHPUT = `((g.tokens_prompt + g.tokens_completion) * 1000.0 / nullif(g.generation_time_ms, 0))`;
/** Chat rows with a generation time: the rows output tokens per second is measured over. */
const CHAT_TIMED = `g.api_type IN ('chat', 'messages', 'responses') AND g.generation_time_ms > 0`;

function pct(p: number, col: string): string {
  return `(percentile_cont(${p}) WITHIN GROUP (ORDER BY ${col}))::float8`;
}

/** Metrics with a source in the usage records, in the order `meta` lists them. */
export const METRICS: readonly MetricDef[] = [
  {
    name: 'request_count',
    label: 'Request Count',
    isRate: false,
    format: 'number',
    maxDays: 365,
    raw: 'count(*)::float8',
    rollup: 'coalesce(sum(r.request_count), 0)::float8',
  },
  {
    name: 'tokens_total',
    label: 'Total Tokens',
    isRate: false,
    format: 'number',
    maxDays: 365,
    raw: 'coalesce(sum(g.tokens_prompt + g.tokens_completion), 0)::float8',
    rollup: 'coalesce(sum(r.tokens_prompt + r.tokens_completion), 0)::float8',
  },
  {
    name: 'tokens_prompt',
    label: 'Prompt Tokens',
    isRate: false,
    format: 'number',
    maxDays: 365,
    raw: 'coalesce(sum(g.tokens_prompt), 0)::float8',
    rollup: 'coalesce(sum(r.tokens_prompt), 0)::float8',
  },
  {
    name: 'tokens_completion',
    label: 'Completion Tokens',
    isRate: false,
    format: 'number',
    maxDays: 365,
    raw: 'coalesce(sum(g.tokens_completion), 0)::float8',
    rollup: 'coalesce(sum(r.tokens_completion), 0)::float8',
  },
  {
    name: 'reasoning_tokens',
    label: 'Reasoning Tokens',
    isRate: false,
    format: 'number',
    maxDays: 365,
    raw: 'coalesce(sum(g.reasoning_tokens), 0)::float8',
    rollup: 'coalesce(sum(r.reasoning_tokens), 0)::float8',
  },
  {
    name: 'cached_tokens',
    label: 'Cached Tokens',
    isRate: false,
    format: 'number',
    maxDays: 365,
    raw: 'coalesce(sum(g.cached_tokens), 0)::float8',
    rollup: 'coalesce(sum(r.cached_tokens), 0)::float8',
  },
  {
    name: 'byok_request_count',
    label: 'BYOK Request Count',
    isRate: false,
    format: 'number',
    maxDays: 365,
    raw: '(count(*) FILTER (WHERE g.is_byok))::float8',
    rollup: 'coalesce(sum(r.byok_request_count), 0)::float8',
  },
  {
    name: 'total_usage',
    label: 'Total Usage',
    isRate: false,
    format: 'currency',
    maxDays: 365,
    raw: `(coalesce(sum(g.cost_usd), 0) + ${BYOK_USD})::float8`,
    rollup: 'coalesce(sum(r.cost_usd + r.byok_usd), 0)::float8',
  },
  {
    name: 'credits_usage',
    label: 'Credits Usage',
    isRate: false,
    format: 'currency',
    maxDays: 365,
    raw: 'coalesce(sum(g.cost_usd), 0)::float8',
    rollup: 'coalesce(sum(r.cost_usd), 0)::float8',
  },
  {
    name: 'byok_usage',
    label: 'BYOK Usage',
    isRate: false,
    format: 'currency',
    maxDays: 365,
    raw: `${BYOK_USD}::float8`,
    rollup: 'coalesce(sum(r.byok_usd), 0)::float8',
  },
  {
    name: 'usage_upstream',
    label: 'Upstream Usage',
    isRate: false,
    format: 'currency',
    maxDays: 365,
    raw: 'coalesce(sum(g.upstream_cost_usd), 0)::float8',
    rollup: 'coalesce(sum(r.upstream_usd), 0)::float8',
  },
  {
    name: 'cache_hit_rate',
    label: 'Cache Hit Rate',
    isRate: true,
    format: 'percent',
    maxDays: 365,
    raw: '(sum(g.cached_tokens)::float8 / nullif(sum(g.tokens_prompt), 0))',
    rollup: '(sum(r.cached_tokens)::float8 / nullif(sum(r.tokens_prompt), 0))',
  },
  {
    name: 'response_cached_count',
    label: 'Response Cached Count',
    isRate: false,
    format: 'number',
    maxDays: 31,
    raw: '(count(*) FILTER (WHERE g.cached_tokens > 0 AND g.cached_tokens >= g.tokens_prompt))::float8',
  },
  {
    name: 'response_cached_rate',
    label: 'Response Cached Rate',
    isRate: true,
    format: 'percent',
    maxDays: 31,
    raw: '((count(*) FILTER (WHERE g.cached_tokens > 0 AND g.cached_tokens >= g.tokens_prompt))::float8 / nullif(count(*), 0))',
  },
  {
    name: 'usage_cache',
    label: 'Cache Savings',
    isRate: false,
    format: 'currency',
    maxDays: 31,
    raw: 'coalesce(sum(g.cache_saved_usd), 0)::float8',
  },
  {
    name: 'avg_latency',
    label: 'Average Latency',
    isRate: true,
    format: 'latency',
    maxDays: 31,
    raw: 'avg(g.latency_ms)::float8',
  },
  {
    name: 'p50_latency',
    label: 'P50 Latency',
    isRate: true,
    format: 'latency',
    maxDays: 31,
    raw: pct(0.5, 'g.latency_ms'),
    hist: { kind: HIST_KIND.latency, p: 0.5 },
  },
  {
    name: 'p90_latency',
    label: 'P90 Latency',
    isRate: true,
    format: 'latency',
    maxDays: 31,
    raw: pct(0.9, 'g.latency_ms'),
    hist: { kind: HIST_KIND.latency, p: 0.9 },
  },
  {
    name: 'p99_latency',
    label: 'P99 Latency',
    isRate: true,
    format: 'latency',
    maxDays: 31,
    raw: pct(0.99, 'g.latency_ms'),
    hist: { kind: HIST_KIND.latency, p: 0.99 },
  },
  {
    name: 'avg_throughput',
    label: 'Average Throughput',
    isRate: true,
    format: 'throughput',
    maxDays: 31,
    raw: `avg(${THROUGHPUT})::float8`,
  },
  {
    name: 'p50_throughput',
    label: 'P50 Throughput',
    isRate: true,
    format: 'throughput',
    maxDays: 31,
    raw: pct(0.5, THROUGHPUT),
  },
  {
    name: 'p90_throughput',
    label: 'P90 Throughput',
    isRate: true,
    format: 'throughput',
    maxDays: 31,
    raw: pct(0.9, THROUGHPUT),
  },
  {
    name: 'p99_throughput',
    label: 'P99 Throughput',
    isRate: true,
    format: 'throughput',
    maxDays: 31,
    raw: pct(0.99, THROUGHPUT),
  },
  {
    name: 'avg_ttft',
    label: 'Average Time to First Token',
    isRate: true,
    format: 'latency',
    maxDays: 31,
    raw: 'avg(g.ttft_ms)::float8',
  },
  {
    name: 'p50_ttft',
    label: 'P50 Time to First Token',
    isRate: true,
    format: 'latency',
    maxDays: 31,
    raw: pct(0.5, 'g.ttft_ms'),
    hist: { kind: HIST_KIND.ttft, p: 0.5 },
  },
  {
    name: 'p90_ttft',
    label: 'P90 Time to First Token',
    isRate: true,
    format: 'latency',
    maxDays: 31,
    raw: pct(0.9, 'g.ttft_ms'),
    hist: { kind: HIST_KIND.ttft, p: 0.9 },
  },
  {
    name: 'p99_ttft',
    label: 'P99 Time to First Token',
    isRate: true,
    format: 'latency',
    maxDays: 31,
    raw: pct(0.99, 'g.ttft_ms'),
    hist: { kind: HIST_KIND.ttft, p: 0.99 },
  },
  {
    name: 'output_tokens_per_second',
    label: 'Output Tokens per Second',
    isRate: true,
    format: 'throughput',
    maxDays: 365,
    raw: `(sum(g.tokens_completion) FILTER (WHERE ${CHAT_TIMED}) * 1000.0 / nullif(sum(g.generation_time_ms) FILTER (WHERE ${CHAT_TIMED}), 0))::float8`,
    rollup: '(sum(r.chat_output_tokens) * 1000.0 / nullif(sum(r.chat_generation_ms), 0))::float8',
  },
];

/** Metrics of the hosted service with no source in this gateway's usage records. */
export const UNAVAILABLE_METRICS: ReadonlySet<string> = new Set([
  'guardrail_invoked_count',
  'usage_data',
  'usage_web',
  'usage_upstream_web',
  'openrouter_usage',
  'byok_fees',
  'usage_file',
  'usage_upstream_file',
  'usage_web_fetch',
  'usage_upstream_web_fetch',
  'guardrail_invoked_rate',
]);

/** Which label a dimension's raw value resolves to in result rows. */
export type LabelKind = 'api_key' | 'workspace' | 'user' | null;

/** One dimension: the raw expression it groups by (alias `g`, or `k` for the key's creator). */
export interface DimensionDef {
  name: string;
  label: string;
  maxDays: 31 | 365;
  /** Grouping expression over raw rows, as text. */
  raw: string;
  /** The same over the rollup, when it holds this dimension. */
  rollup?: string;
  /** The same over the latency histograms (`latency_hist_hourly r`), when they hold this dimension. */
  hist?: string;
  /** Needs the `api_keys k` join (the key's creator). */
  needsKey?: boolean;
  /** Rows can lack a value (an unset bucket), so `include_unset` applies. */
  nullable: boolean;
  labels: LabelKind;
}

/** Dimensions with a source, in the order `meta` lists them. */
export const DIMENSIONS: readonly DimensionDef[] = [
  { name: 'model', label: 'Model', maxDays: 365, raw: 'g.model', rollup: 'r.model', nullable: false, labels: null },
  {
    name: 'variant',
    label: 'Variant',
    maxDays: 365,
    raw: 'g.variant',
    rollup: `nullif(r.variant, '')`,
    nullable: true,
    labels: null,
  },
  {
    name: 'api_key_id',
    label: 'API Key',
    maxDays: 365,
    raw: 'g.key_hash',
    rollup: 'r.key_hash',
    nullable: false,
    labels: 'api_key',
  },
  {
    name: 'user',
    label: 'User',
    maxDays: 365,
    raw: 'k.creator_user_id',
    needsKey: true,
    nullable: true,
    labels: 'user',
  },
  {
    name: 'workspace',
    label: 'Workspace',
    maxDays: 365,
    raw: 'g.workspace_id::text',
    rollup: 'r.workspace_id::text',
    nullable: false,
    labels: 'workspace',
  },
  {
    name: 'app',
    label: 'App',
    maxDays: 365,
    raw: 'coalesce(g.app_title, g.http_referer)',
    rollup: `nullif(r.app, '')`,
    nullable: true,
    labels: null,
  },
  { name: 'generation_id', label: 'Generation', maxDays: 31, raw: 'g.id', nullable: false, labels: null },
  {
    name: 'provider',
    label: 'Provider',
    maxDays: 31,
    raw: 'g.provider',
    hist: `nullif(r.provider, '')`,
    nullable: true,
    labels: null,
  },
  {
    name: 'api_type',
    label: 'API Type',
    maxDays: 31,
    raw: 'g.api_type',
    hist: 'r.api_type',
    nullable: false,
    labels: null,
  },
  {
    name: 'streamed',
    label: 'Streamed',
    maxDays: 31,
    raw: `CASE WHEN g.streamed THEN 'true' ELSE 'false' END`,
    nullable: false,
    labels: null,
  },
  { name: 'origin', label: 'Origin', maxDays: 31, raw: 'g.origin', nullable: true, labels: null },
  { name: 'finish_reason', label: 'Finish Reason', maxDays: 31, raw: 'g.finish_reason', nullable: true, labels: null },
  { name: 'external_user', label: 'External User', maxDays: 31, raw: 'g.end_user', nullable: true, labels: null },
  {
    name: 'context_length_bucket',
    label: 'Context Length',
    maxDays: 31,
    raw: `CASE WHEN g.tokens_prompt <= 1000 THEN '1K' WHEN g.tokens_prompt <= 10000 THEN '10K' WHEN g.tokens_prompt <= 100000 THEN '100K' WHEN g.tokens_prompt <= 1000000 THEN '1M' ELSE '10M' END`,
    nullable: false,
    labels: null,
  },
];

/** Dimensions of the hosted service with no source here. */
export const UNAVAILABLE_DIMENSIONS: ReadonlySet<string> = new Set(['country']);

/** The eight filter operators; `in`/`not_in` take an array, the rest a scalar. */
export const OPERATORS = [
  { name: 'eq', valueType: 'scalar', sql: '=' },
  { name: 'neq', valueType: 'scalar', sql: '<>' },
  { name: 'gt', valueType: 'scalar', sql: '>' },
  { name: 'gte', valueType: 'scalar', sql: '>=' },
  { name: 'lt', valueType: 'scalar', sql: '<' },
  { name: 'lte', valueType: 'scalar', sql: '<=' },
  { name: 'in', valueType: 'array', sql: 'in' },
  { name: 'not_in', valueType: 'array', sql: 'not_in' },
] as const;

/** One operator's entry. */
export type OperatorDef = (typeof OPERATORS)[number];

/** A time bucket: its `date_trunc` unit and nominal length (for bucket counts). */
export interface GranularityDef {
  name: 'minute' | 'hour' | 'day' | 'week' | 'month';
  label: string;
  unit: string;
  ms: number;
}

const HOUR = 3_600_000;
/** The five granularities; `minute` only for windows of at most {@link MINUTE_MAX_WINDOW_MS}. */
export const GRANULARITIES: readonly GranularityDef[] = [
  { name: 'minute', label: 'Minute', unit: 'minute', ms: 60_000 },
  { name: 'hour', label: 'Hour', unit: 'hour', ms: HOUR },
  { name: 'day', label: 'Day', unit: 'day', ms: 24 * HOUR },
  { name: 'week', label: 'Week', unit: 'week', ms: 7 * 24 * HOUR },
  { name: 'month', label: 'Month', unit: 'month', ms: 28 * 24 * HOUR },
];

/** Longest window `minute` granularity accepts. */
export const MINUTE_MAX_WINDOW_MS = 3 * HOUR;
/** Window of classifier queries (tags are kept with the raw rows). */
export const CLASSIFIER_MAX_DAYS = 31;
/** Default window when `time_range` is omitted. */
export const DEFAULT_WINDOW_MS = 7 * 24 * HOUR;

export const METRIC_BY_NAME: ReadonlyMap<string, MetricDef> = new Map(METRICS.map((m) => [m.name, m]));
export const DIMENSION_BY_NAME: ReadonlyMap<string, DimensionDef> = new Map(DIMENSIONS.map((d) => [d.name, d]));
export const OPERATOR_BY_NAME: ReadonlyMap<string, OperatorDef> = new Map(OPERATORS.map((o) => [o.name, o]));
export const GRANULARITY_BY_NAME: ReadonlyMap<string, GranularityDef> = new Map(GRANULARITIES.map((g) => [g.name, g]));

/** The `GET /analytics/meta` body: exactly what the query accepts. */
export function analyticsMeta() {
  return {
    data: {
      metrics: METRICS.map((m) => ({
        name: m.name,
        display_label: m.label,
        is_rate: m.isRate,
        display_format: m.format,
      })),
      dimensions: DIMENSIONS.map((d) => ({ name: d.name, display_label: d.label })),
      operators: OPERATORS.map((o) => ({ name: o.name, value_type: o.valueType })),
      granularities: GRANULARITIES.map((g) => ({ name: g.name, display_label: g.label })),
    },
  };
}
