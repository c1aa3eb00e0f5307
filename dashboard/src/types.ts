/**
 * The wire objects of the gateway API the dashboard reads. Those with a response schema come from
 * the server's own types (derived from src/wire/, types only: no server code reaches the bundle);
 * the rest are the subset of each answer the dashboard reads (docs/api.md).
 */
export type { AnalyticsAnswer, Budget, Interval, Key, Member, Row, Workspace } from '../../src/wire/types';

/** The caller's organization's upstream attempts over the last `window_minutes`. */
export interface Recent {
  window_minutes: number;
  attempts: number;
  failures: number;
  error_rate: number | null;
  avg_latency_ms: number | null;
}

export interface Endpoint {
  model: string;
  model_name: string;
  circuit: { state: 'closed' | 'half_open' | 'open' | 'unknown'; consecutive_failures: number | null };
  recent: Recent;
}

export interface Provider {
  slug: string;
  name: string;
  configured: boolean;
  recent: Recent;
  endpoints: Endpoint[];
}

export interface AnalyticsMeta {
  data: {
    metrics: Array<{ name: string; display_label: string; is_rate: boolean; display_format: Format }>;
    dimensions: Array<{ name: string; display_label: string }>;
    operators: Array<{ name: string; value_type: 'scalar' | 'array' }>;
    granularities: Array<{ name: string; display_label: string }>;
  };
}

export type Format = 'number' | 'currency' | 'percent' | 'latency' | 'throughput';

export interface RankingRow {
  date: string;
  model_permaslug: string;
  total_tokens: string;
}

export interface RankingsAnswer {
  data: RankingRow[];
  /** `as_of` is the last rollup's start (the epoch before the first run). */
  meta: { as_of: string | null; start_date: string; end_date: string };
}
