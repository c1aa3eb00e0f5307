/**
 * The wire objects of the gateway API the dashboard reads. Those with a response schema come from
 * the server's own types (derived from src/wire/, types only: no server code reaches the bundle);
 * the rest are the subset of each answer the dashboard reads (docs/api.md).
 */
export type {
  AnalyticsAnswer, AnalyticsMeta, Budget, Endpoint, Format, Interval, Key, Member, Provider, Recent, Row, Workspace,
} from '../../src/wire/types';

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
