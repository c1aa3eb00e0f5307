/**
 * The rankings dataset's request and answer shapes, shared by the parser, the query, the
 * ranking and the route.
 * @module
 */
import type { ContextBucket } from './buckets';
import type { Wire } from '../wire';
import rankingsQuery from '../wire/requests/datasets.rankings.query';

type Query = Wire<'datasets.rankings.query'>;

/** Row grain of an answer. */
export type Period = NonNullable<Query['period']>;
export type Modality = NonNullable<Query['modality']>;
export type LanguageType = NonNullable<Query['language_type']>;

/** The spec's twelve use-case categories, as the query's schema lists them. */
export const CATEGORIES = rankingsQuery.properties.category.enum;
export type Category = (typeof CATEGORIES)[number];

/**
 * The dataset a request reads: the exact daily rollup, optionally restricted by modality and/or
 * context bucket (rule 1 allows the two together), or one sampled weekly tag (rules 2 and 3).
 */
export type DatasetFilter =
  | { kind: 'exact'; modality?: Modality; contextBucket?: ContextBucket }
  | { kind: 'sampled'; dimension: 'category'; value: Category }
  | { kind: 'sampled'; dimension: 'language_type'; value: LanguageType };

/** A validated request, dates resolved (epoch days, UTC). */
export interface RankingsRequest {
  startDay: number;
  endDay: number;
  period: Period;
  filter: DatasetFilter;
}

/** Whose traffic is ranked: one organization's (exact), or the whole installation's as published (publish.ts). */
export type RankingsScope = { kind: 'org'; orgId: string } | { kind: 'installation' };

/** One answer row, as on the wire. */
export type { RankingRow, RankingsAnswer } from '../wire/types';
