/**
 * The rankings dataset's request and answer shapes, shared by the parser, the query, the
 * ranking and the route.
 * @module
 */
import type { ContextBucket } from './buckets';

/** Row grain of an answer. */
export type Period = 'day' | 'week' | 'month';
export type Modality = 'text' | 'image' | 'image_output' | 'audio' | 'tool_calling';
export type LanguageType = 'natural' | 'programming';

/** The spec's twelve use-case categories. */
export const CATEGORIES = [
  'programming', 'roleplay', 'marketing', 'marketing/seo', 'technology', 'science',
  'translation', 'legal', 'finance', 'health', 'trivia', 'academia',
] as const;
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
export interface RankingRow {
  date: string;
  model_permaslug: string;
  total_tokens: string;
}

/** The answer body. */
export interface RankingsAnswer {
  data: RankingRow[];
  meta: { as_of: string; start_date: string; end_date: string; version: 'v1' };
}
