/**
 * The time buckets of an analytics window, as the query's `date_trunc` makes them (UTC; weeks
 * start on Monday, months on the 1st). A chart draws every bucket of the window, the empty ones
 * too, so its axis spans the window asked for even when only one bucket has rows.
 */

/** A granularity of the analytics query. */
export type Granularity = 'minute' | 'hour' | 'day' | 'week' | 'month';

const MINUTE = 60_000;
const FIXED: Partial<Record<Granularity, number>> = {
  minute: MINUTE,
  hour: 60 * MINUTE,
  day: 1440 * MINUTE,
  week: 7 * 1440 * MINUTE,
};
/** 1970-01-01 was a Thursday, so Monday-based weeks are offset by three days. */
const WEEK_OFFSET = 3 * 1440 * MINUTE;

/** The start of the bucket of `granularity` holding `ms`. */
export function bucketStart(ms: number, granularity: Granularity): number {
  if (granularity === 'month') {
    const d = new Date(ms);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
  const size = FIXED[granularity] as number;
  const offset = granularity === 'week' ? WEEK_OFFSET : 0;
  return Math.floor((ms + offset) / size) * size - offset;
}

/** The start of the bucket after the one starting at `start`. */
function next(start: number, granularity: Granularity): number {
  if (granularity !== 'month') return start + (FIXED[granularity] as number);
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Every bucket start (ms) of the window [startMs, endMs), oldest first; at most `max`. */
export function bucketStarts(startMs: number, endMs: number, granularity: Granularity, max = 10_000): number[] {
  const out: number[] = [];
  for (let t = bucketStart(startMs, granularity); t < endMs && out.length < max; t = next(t, granularity)) out.push(t);
  return out;
}

/** A bucket's nominal length in seconds (a month counts 30 days): the chart pads its axis by half of it. */
export function bucketSeconds(granularity: Granularity): number {
  return (FIXED[granularity] ?? 30 * 1440 * MINUTE) / 1000;
}
