/**
 * Named wire types, derived from the schemas, for the server's builders and the dashboard alike
 * (the dashboard imports them with `import type`, so no server code reaches its bundle).
 * @module
 */
import type { Wire } from './index';

export type { Wire, WireId } from './index';

/** A key as `/keys` answers it. */
export type Key = Wire<'keys.get.response'>['data'];
/** A workspace as `/workspaces` answers it. */
export type Workspace = Wire<'workspaces.get.response'>['data'];
/** A budget as read: its settings and where it stands in its current period. */
export type Budget = Wire<'budgets.get.response'>['data'];
/** A budget as set (the answer of an upsert). */
export type BudgetSettings = Wire<'budgets.upsert.response'>['data'];
/** A budget's reset interval. */
export type Interval = Budget['reset_interval'];
/** A workspace membership. */
export type Member = Wire<'members.list.response'>['data'][number];
/** The dashboard session handed out on sign-in. */
export type Session = Wire<'dashboard.session.response'>['data'];
/** The answer of `POST /analytics/query`. */
export type AnalyticsAnswer = Wire<'analytics.query.response'>;
/** One analytics row: dimension values, `date__<g>` and metric numbers. */
export type Row = AnalyticsAnswer['data']['data'][number];
/** The answer of `GET /analytics/meta`. */
export type AnalyticsMeta = Wire<'analytics.meta.response'>;
/** How the dashboard shows a metric's values. */
export type Format = AnalyticsMeta['data']['metrics'][number]['display_format'];
/** A provider of `GET /providers`, with its endpoints' circuits and recent attempts. */
export type Provider = Wire<'providers.list.response'>['data'][number];
/** One endpoint of a provider. */
export type Endpoint = Provider['endpoints'][number];
/** Upstream attempts over the last `window_minutes`. */
export type Recent = Provider['recent'];
/** The answer of `POST /embeddings`. */
export type EmbeddingsResponse = Wire<'embeddings.create.response'>;
/** The answer of `GET /datasets/rankings-daily`. */
export type RankingsAnswer = Wire<'datasets.rankings.response'>;
/** One row of the rankings dataset: a day, a model and its tokens (a decimal string). */
export type RankingRow = RankingsAnswer['data'][number];
