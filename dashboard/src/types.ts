/**
 * The wire objects of the gateway API the dashboard reads. Those with a response schema come from
 * the server's own types (derived from src/wire/, types only: no server code reaches the bundle);
 * every answer the dashboard reads has one.
 */
export type {
  AnalyticsAnswer,
  AnalyticsMeta,
  Budget,
  Endpoint,
  Format,
  Interval,
  Key,
  Member,
  Provider,
  RankingRow,
  RankingsAnswer,
  Recent,
  Row,
  Workspace,
} from '../../src/wire/types';
