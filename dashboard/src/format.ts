/** Number, money, latency and date formatting, in one place so every page reads the same. */
import type { Format } from './types';
import { formatUsd, usdTicks } from '../../src/catalog/usd';

export { usdTicks };

const count = new Intl.NumberFormat('en-US');
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

/**
 * USD: the gateway's one money format (`formatUsd`): cents from a dollar up, four significant
 * digits below, so $0.013608 and $0.010345 never both read "$0.01".
 */
export function usd(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : formatUsd(value);
}

/** Labels for an axis of values in `format`: money by {@link usdTicks}, the rest one by one. */
export function axisLabels(format: Format): (ticks: readonly number[], step: number) => string[] {
  return format === 'currency' ? usdTicks : (ticks) => ticks.map((t) => byFormat(format, t));
}

/** A count with thousands separators. */
export function num(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : count.format(value);
}

/** A count for an axis label (12.3K). */
export function short(value: number): string {
  return compact.format(value);
}

/** Milliseconds, rounded. */
export function ms(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${count.format(Math.round(value))} ms`;
}

/** A 0–1 ratio as a percentage. */
export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${(value * 100).toFixed(1)} %`;
}

/** An error rate with what it is out of ("2.5 % of 40"), or a dash when nothing was tried. */
export function errorRate(failures: number, attempts: number): string {
  return attempts > 0 ? `${percent(failures / attempts)} of ${num(attempts)}` : '— (no attempts)';
}

/** A value in the display format the analytics meta names for its metric. */
export function byFormat(format: Format, value: number | null | undefined): string {
  switch (format) {
    case 'currency':
      return usd(value);
    case 'percent':
      return percent(value);
    case 'latency':
      return ms(value);
    case 'throughput':
      return value === null || value === undefined ? '—' : `${count.format(Math.round(value))} tok/s`;
    case 'number':
    default:
      return num(value);
  }
}

/** An ISO instant as `2026-11-10 14:05 UTC`: the gateway's periods are UTC, so the dashboard is too. */
export function utc(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** An ISO instant as its UTC date. */
export function day(iso: string): string {
  return iso.slice(0, 10);
}
