/**
 * The endpoint statistics' latency histogram: bucketing and the percentile estimate the model
 * endpoint list reports (`latency_last_30m`), interpolated inside a bucket as Prometheus's
 * `histogram_quantile` does.
 */
import {
  LATENCY_BOUNDS_MS,
  latencyBucket,
  latencyPercentiles,
  latencyQuantile,
} from '../../src/routing/latency-histogram';

const counts = (entries: Array<[ms: number, n: number]>): number[] => {
  const out = Array.from({ length: LATENCY_BOUNDS_MS.length + 1 }, () => 0);
  for (const [ms, n] of entries) out[latencyBucket(ms)] = (out[latencyBucket(ms)] ?? 0) + n;
  return out;
};

test('an attempt lands in the first bucket whose bound it does not exceed; slower than all in the overflow bucket', () => {
  expect(latencyBucket(0)).toBe(0);
  expect(latencyBucket(5)).toBe(0);
  expect(latencyBucket(5.01)).toBe(1);
  expect(latencyBucket(45_000)).toBe(LATENCY_BOUNDS_MS.length - 1);
  expect(latencyBucket(60_000)).toBe(LATENCY_BOUNDS_MS.length);
});

test('percentiles interpolate inside the bucket the rank falls in', () => {
  // 100 attempts between 25 and 50 ms: the median halfway, p90 at 90 %.
  expect(latencyPercentiles(counts([[40, 100]]))).toEqual({ p50: 37.5, p75: 43.75, p90: 47.5, p99: 49.75 });
  // 90 fast ones and 10 slow ones: p50/p75 in the fast bucket, p99 in the slow one.
  const mixed = latencyPercentiles(
    counts([
      [3, 90],
      [1200, 10],
    ]),
  );
  expect(mixed?.p50).toBeLessThanOrEqual(5);
  expect(mixed?.p90).toBe(5);
  expect(mixed?.p99).toBeGreaterThan(1000);
  expect(mixed?.p99).toBeLessThanOrEqual(1500);
});

test('no answered attempt: null; a rank in the overflow bucket reports the highest bound', () => {
  expect(latencyPercentiles(counts([]))).toBeNull();
  expect(latencyQuantile(counts([[90_000, 3]]), 0.5)).toBe(LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]);
});
