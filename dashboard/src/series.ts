/**
 * Turns answer rows (one per time bucket and group) into chart series: one line per group,
 * the largest groups named and the rest summed as "other", so a chart stays readable.
 */
import type { Row } from './types';

/** Chart input: bucket starts in Unix seconds and one value per bucket for each series. */
export interface SeriesData {
  x: number[];
  series: Array<{ label: string; values: Array<number | null> }>;
  /** One bucket's length in seconds: the axis reaches half a bucket past the first and last. */
  step?: number;
}

const OTHER = 'other';

/** The label a row's group shows: its dimension values joined, `(none)` for unset. */
export function groupLabel(row: Row, dims: readonly string[]): string {
  if (dims.length === 0) return 'total';
  return dims.map((d) => (row[d] === null || row[d] === undefined ? '(none)' : String(row[d]))).join(' · ');
}

/** How {@link pivot} treats buckets. */
export interface PivotOptions {
  /** Every bucket start of the window in ms (else those with rows), matched to `timeKey` instants. */
  buckets?: readonly number[];
  /** One bucket's length in seconds (see {@link SeriesData.step}). */
  step?: number;
  /**
   * The value where a group has no row: 0 for counts and sums (no requests means nothing
   * spent), null (a gap) for rates and percentiles, which are undefined without requests.
   */
  fill?: number | null;
  /** Lines drawn at most, "other" included. */
  maxSeries?: number;
}

/**
 * Pivot `rows` on `timeKey`: one series per group of `dims` for `metric`, the `maxSeries - 1`
 * largest by total named and the rest summed as "other".
 */
export function pivot(
  rows: readonly Row[],
  timeKey: string,
  dims: readonly string[],
  metric: string,
  options: PivotOptions = {},
): SeriesData {
  const { buckets, fill = null, maxSeries = 8, step } = options;
  const at = (r: Row) => Date.parse(String(r[timeKey]));
  const times = buckets ? [...buckets] : [...new Set(rows.map(at))].sort((a, b) => a - b);
  const totals = new Map<string, number>();
  for (const r of rows)
    totals.set(groupLabel(r, dims), (totals.get(groupLabel(r, dims)) ?? 0) + (Number(r[metric]) || 0));
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1]).map(([g]) => g);
  const named = ranked.length <= maxSeries ? ranked : ranked.slice(0, maxSeries - 1);
  const labels = ranked.length > named.length ? [...named, OTHER] : named;
  const index = new Map(times.map((t, i) => [t, i]));
  const values = labels.map(() => times.map((): number | null => fill));
  for (const r of rows) {
    const g = groupLabel(r, dims);
    const s = named.includes(g) ? labels.indexOf(g) : labels.indexOf(OTHER);
    const t = index.get(at(r));
    const v = Number(r[metric]);
    if (s < 0 || t === undefined || r[metric] === null || Number.isNaN(v)) continue;
    const line = values[s] as Array<number | null>;
    line[t] = (line[t] ?? 0) + v;
  }
  return {
    x: times.map((t) => t / 1000),
    series: labels.map((label, i) => ({ label, values: values[i] as Array<number | null> })),
    step,
  };
}
