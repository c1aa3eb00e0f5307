/**
 * Log-scale histograms of latency and time to first token, for percentiles that merge hourly
 * histograms instead of sorting every raw row of the window. A value v ≥ 1 ms falls in bucket
 * `1 + floor(ln v / ln GAMMA)`, covering [GAMMA^(b-1), GAMMA^b); 0 ms is bucket 0. A bucket is
 * reported as the point whose relative distance to both ends is equal (2·lo·hi / (lo + hi)), so
 * the reported value is within (GAMMA - 1) / (GAMMA + 1) of every value in the bucket.
 * @module
 */

/** Ratio between consecutive bucket bounds: 2 % wide buckets, so a reported value is within 1 % of the true one. */
export const GAMMA = 1.02;

/** The largest relative error of a reported value: (GAMMA - 1) / (GAMMA + 1), just under 1 %. */
export const RELATIVE_ERROR = (GAMMA - 1) / (GAMMA + 1);

/** Which figure a histogram holds (`latency_hist_hourly.kind`). */
export const HIST_KIND = { latency: 0, ttft: 1 } as const;
export type HistKind = (typeof HIST_KIND)[keyof typeof HIST_KIND];

/** The bucket of `v` (ms) as SQL; the constants are the code's own. */
export function bucketSql(v: string): string {
  return `(CASE WHEN ${v} < 1 THEN 0 ELSE 1 + floor(ln(${v}::float8) / ${Math.log(GAMMA)})::int END)`;
}

/** The value a bucket reports, as SQL over bucket expression `b`. */
export function bucketValueSql(b: string): string {
  const k = (2 * GAMMA) / (1 + GAMMA);
  return `(CASE WHEN ${b} = 0 THEN 0::float8 ELSE exp((${b} - 1) * ${Math.log(GAMMA)}) * ${k} END)`;
}

/** The bucket of `v` ms (the same rule as {@link bucketSql}); for tests and tools. */
export function bucketOf(v: number): number {
  return v < 1 ? 0 : 1 + Math.floor(Math.log(v) / Math.log(GAMMA));
}

/** The value bucket `b` reports (the same rule as {@link bucketValueSql}). */
export function bucketValue(b: number): number {
  return b === 0 ? 0 : Math.exp((b - 1) * Math.log(GAMMA)) * ((2 * GAMMA) / (1 + GAMMA));
}
