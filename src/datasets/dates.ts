/**
 * UTC calendar dates as `YYYY-MM-DD` strings, the dataset's only time unit. Kept as strings (and
 * epoch days for arithmetic) so no local time zone ever enters the answer.
 * @module
 */

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The dataset's first day: earlier start dates are clamped to it, earlier end dates refused. */
export const DATASET_START = '2025-01-01';

/** Days since 1970-01-01 of a real calendar date, or null (`2025-02-30` is not one). */
export function parseDay(text: string): number | null {
  const m = DATE.exec(text);
  if (!m) return null;
  // setUTCFullYear, not Date.UTC: the latter reads years 0–99 as 1900–1999.
  const back = new Date(0);
  back.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const ms = back.getTime();
  if (
    back.getUTCFullYear() !== Number(m[1]) ||
    back.getUTCMonth() !== Number(m[2]) - 1 ||
    back.getUTCDate() !== Number(m[3])
  )
    return null;
  return ms / DAY_MS;
}

/** `YYYY-MM-DD` of an epoch day. */
export function formatDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The epoch day containing `ms` (UTC). */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** Start of `day` in epoch milliseconds. */
export function dayStartMs(day: number): number {
  return day * DAY_MS;
}

/** The ISO week start (Monday) of an epoch day (1970-01-01 was a Thursday). */
export function weekStart(day: number): number {
  return day - ((day + 3) % 7);
}

/** The first day of the month of an epoch day. */
export function monthStart(day: number): number {
  const d = new Date(day * DAY_MS);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / DAY_MS;
}
