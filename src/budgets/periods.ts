/**
 * Spending periods in UTC, computed from the injectable clock: the calendar day, the ISO week
 * (Monday 00:00 UTC to the next Monday), the calendar month, and "lifetime" (never resets).
 * Each period has a stable id that names its counters, so a new period simply starts a new
 * counter and nothing ever has to reset one.
 * @module
 */

/** A budget interval; `lifetime` never resets. */
export type Interval = 'daily' | 'weekly' | 'monthly' | 'lifetime';

/** Every interval, narrowest first (the order budgets must strictly increase in). */
export const INTERVALS: readonly Interval[] = ['daily', 'weekly', 'monthly', 'lifetime'];

/** One concrete period of an interval. */
export interface Period {
  interval: Interval;
  /** Counter id: `2026-11-22`, week start `2026-11-16`, `2026-11`, or `all`. */
  id: string;
  /** Inclusive start (epoch ms; 0 for lifetime). */
  startMs: number;
  /** Exclusive end (epoch ms), null for lifetime. */
  endMs: number | null;
}

const DAY_MS = 86_400_000;
const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The period of `interval` that contains the instant `nowMs`. */
export function periodOf(interval: Interval, nowMs: number): Readonly<Period> {
  return computePeriod(interval, nowMs);
}

function computePeriod(interval: Interval, nowMs: number): Period {
  const d = new Date(nowMs);
  const dayStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  switch (interval) {
    case 'daily':
      return { interval, id: ymd(dayStart), startMs: dayStart, endMs: dayStart + DAY_MS };
    case 'weekly': {
      // getUTCDay: Sunday 0 … Saturday 6; ISO weeks start on Monday.
      const start = dayStart - ((d.getUTCDay() + 6) % 7) * DAY_MS;
      return { interval, id: ymd(start), startMs: start, endMs: start + 7 * DAY_MS };
    }
    case 'monthly': {
      const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
      return {
        interval,
        id: ymd(start).slice(0, 7),
        startMs: start,
        endMs: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
      };
    }
    case 'lifetime':
      return { interval, id: 'all', startMs: 0, endMs: null };
  }
}
