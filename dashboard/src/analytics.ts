/** The analytics query from the dashboard, and the UTC windows its pages ask about. */
import { request } from './api';
import type { AnalyticsAnswer, Row } from './types';

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;

/** The start of the UTC day holding `ms`. */
export function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** A `time_range` from two instants in milliseconds. */
export function range(startMs: number, endMs: number): { start: string; end: string } {
  return { start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString() };
}

/** Run `POST /api/v1/analytics/query` (docs/analytics.md) and return its rows. */
export async function query(body: Record<string, unknown>): Promise<Row[]> {
  const answer = await request<AnalyticsAnswer>('POST', '/api/v1/analytics/query', body);
  return answer.data.data;
}
