/** The wire objects of the gateway API the dashboard reads (a subset of each; docs/api.md). */

export interface Key {
  hash: string;
  name: string;
  label: string;
  disabled: boolean;
  limit: number | null;
  limit_remaining: number | null;
  limit_reset: 'daily' | 'weekly' | 'monthly' | null;
  usage: number;
  usage_daily: number;
  usage_weekly: number;
  usage_monthly: number;
  created_at: string;
  expires_at: string | null;
  workspace_id: string;
}

export interface Workspace {
  id: string;
  name: string;
  slug: string;
  description: string | null;
}

export type Interval = 'daily' | 'weekly' | 'monthly' | 'lifetime';

/** A budget; `spent_usd`, `reserved_usd` and `resets_at` are read when the server sends them. */
export interface Budget {
  id: string;
  workspace_id: string;
  limit_usd: number;
  reset_interval: Interval;
  spent_usd: number;
  reserved_usd: number | null;
  resets_at: string | null;
}

export interface Member {
  user_id: string;
  role: string;
  created_at: string;
}

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

/** One row of an analytics answer: dimension values, `date__<g>` and metric numbers. */
export type Row = Record<string, string | number | null>;

export interface AnalyticsAnswer {
  data: { data: Row[]; metadata: { row_count: number; truncated: boolean; query_time_ms?: number }; warnings?: string[] };
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
