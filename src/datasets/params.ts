/**
 * The request rules of `GET /datasets/rankings-daily` beyond its JSON Schema (which checks each
 * value): calendar dates, defaults from the injected clock, the 2025-01-01 floor, start after
 * end, and combination rules 1–4. Every broken rule is reported in one 400, naming it.
 * @module
 */
import { ValidationError, type ValidationIssue } from '../errors';
import { DATASET_START, dayOf, parseDay } from './dates';
import type { DatasetFilter, RankingsRequest } from './types';
import type { Wire } from '../wire';

/** The query as the schema `datasets.rankings.query` validated it. */
export type RankingsQuery = Wire<'datasets.rankings.query'>;

/** Length of the default window: start is this many days before end. */
export const DEFAULT_WINDOW_DAYS = 30;

const FLOOR = parseDay(DATASET_START) as number;

/** Pairs the combination rules forbid, each with the rule that forbids it. */
const CONFLICTS: ReadonlyArray<[keyof RankingsQuery, keyof RankingsQuery, number]> = [
  ['modality', 'category', 1],
  ['modality', 'language_type', 1],
  ['context_bucket', 'category', 1],
  ['context_bucket', 'language_type', 1],
  ['category', 'language_type', 2],
];

function conflictIssues(q: RankingsQuery): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [a, b, rule] of CONFLICTS) {
    if (q[a] !== undefined && q[b] !== undefined)
      issues.push({ path: 'query', message: `${a} may not be combined with ${b} (combination rule ${rule})` });
  }
  const sampled = q.category !== undefined ? 'category' : q.language_type !== undefined ? 'language_type' : null;
  if (sampled && q.period === 'day') {
    issues.push({
      path: 'query.period',
      message: `must be week or month with ${sampled} (combination rule 4: sampled datasets are weekly)`,
    });
  }
  return issues;
}

function dateIssue(
  name: 'start_date' | 'end_date',
  text: string | undefined,
): [number | undefined, ValidationIssue | null] {
  if (text === undefined) return [undefined, null];
  const day = parseDay(text);
  return day === null
    ? [undefined, { path: `query.${name}`, message: 'must be a calendar date YYYY-MM-DD' }]
    : [day, null];
}

/**
 * Resolve a schema-valid query into a request.
 * @param nowMs - the injected clock; the default end date is the last completed UTC day before it
 * @throws ValidationError listing every broken rule
 */
export function resolveRankingsRequest(q: RankingsQuery, nowMs: number): RankingsRequest {
  const issues = conflictIssues(q);
  const [endGiven, endIssue] = dateIssue('end_date', q.end_date);
  const [startGiven, startIssue] = dateIssue('start_date', q.start_date);
  for (const issue of [endIssue, startIssue]) if (issue) issues.push(issue);
  const endDay = endGiven ?? dayOf(nowMs) - 1;
  if (endGiven !== undefined && endGiven < FLOOR)
    issues.push({ path: 'query.end_date', message: `must be on or after ${DATASET_START}, where the dataset begins` });
  const startDay = Math.max(startGiven ?? endDay - DEFAULT_WINDOW_DAYS, FLOOR);
  if (startGiven !== undefined && endDay >= FLOOR && startDay > endDay)
    issues.push({ path: 'query.start_date', message: 'must be on or before end_date' });
  if (issues.length > 0) throw new ValidationError(issues);
  const sampled = q.category !== undefined || q.language_type !== undefined;
  return { startDay, endDay, period: q.period ?? (sampled ? 'week' : 'day'), filter: filterOf(q) };
}

function filterOf(q: RankingsQuery): DatasetFilter {
  if (q.category !== undefined) return { kind: 'sampled', dimension: 'category', value: q.category };
  if (q.language_type !== undefined) return { kind: 'sampled', dimension: 'language_type', value: q.language_type };
  return { kind: 'exact', modality: q.modality, contextBucket: q.context_bucket };
}
