/**
 * When a budget period ends, for budgets whose answer carries no `resets_at`: the gateway's
 * periods are UTC calendar days, ISO weeks starting Monday 00:00 and calendar months.
 */
import { DAY_MS, dayStart } from './analytics';
import type { Interval } from './types';

/** The end of the current `interval` period as an ISO instant; null for lifetime. */
export function periodEnd(interval: Interval, now = Date.now()): string | null {
  const today = dayStart(now);
  const d = new Date(today);
  switch (interval) {
    case 'daily':
      return new Date(today + DAY_MS).toISOString();
    case 'weekly':
      return new Date(today + (7 - ((d.getUTCDay() + 6) % 7)) * DAY_MS).toISOString();
    case 'monthly':
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString();
    default:
      return null;
  }
}
