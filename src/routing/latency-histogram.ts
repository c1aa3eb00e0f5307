/**
 * A fixed-bucket latency histogram for the per-minute endpoint statistics: a minute's answered
 * attempts are counted per bucket (a handful of hash fields, whatever the traffic), and the
 * percentiles the hosted endpoint list reports (`latency_last_30m`) are estimated from the summed
 * buckets the way Prometheus's `histogram_quantile` does, by linear interpolation inside the
 * bucket the rank falls in.
 * @module
 */

/** Upper bounds in milliseconds; one more bucket above the last holds everything slower. */
export const LATENCY_BOUNDS_MS: readonly number[] = [
  5, 10, 25, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10_000, 20_000, 45_000,
];

/** The bucket index of an attempt that took `ms` (`LATENCY_BOUNDS_MS.length` for the overflow bucket). */
export function latencyBucket(ms: number): number {
  const i = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return i === -1 ? LATENCY_BOUNDS_MS.length : i;
}

/** p50/p75/p90/p99 in milliseconds, as the hosted API's `PercentileStats`. */
export interface PercentileStats {
  p50: number;
  p75: number;
  p90: number;
  p99: number;
}

/**
 * The `q` quantile (0–1) of per-bucket counts (index = {@link latencyBucket}), or null when they
 * hold nothing. A rank in the overflow bucket reports the highest bound, as Prometheus does.
 */
export function latencyQuantile(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((a, n) => a + n, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i] ?? 0;
    if (n > 0 && below + n >= rank) {
      const upper = LATENCY_BOUNDS_MS[i];
      if (upper === undefined) break;
      const lower = i === 0 ? 0 : (LATENCY_BOUNDS_MS[i - 1] as number);
      return Math.round((lower + ((upper - lower) * (rank - below)) / n) * 100) / 100;
    }
    below += n;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1] as number;
}

/** The four percentiles of `counts`, or null when no attempt was answered in the window. */
export function latencyPercentiles(counts: readonly number[]): PercentileStats | null {
  const p50 = latencyQuantile(counts, 0.5);
  if (p50 === null) return null;
  return {
    p50,
    p75: latencyQuantile(counts, 0.75) as number,
    p90: latencyQuantile(counts, 0.9) as number,
    p99: latencyQuantile(counts, 0.99) as number,
  };
}
