/**
 * The analytics latency histograms' bucket rule: every value from 0 ms to 10 minutes is reported
 * within the stated relative error, buckets are ordered like the values, and the bound is under 1 %.
 */
import { GAMMA, RELATIVE_ERROR, bucketOf, bucketValue } from '../../src/analytics/histogram';

test('the stated bound is (γ − 1) / (γ + 1), under 1 %', () => {
  expect(RELATIVE_ERROR).toBeCloseTo((GAMMA - 1) / (GAMMA + 1), 15);
  expect(RELATIVE_ERROR).toBeLessThan(0.01);
});

test('every value up to 10 minutes is reported within the bound, and a larger value never falls in a smaller bucket', () => {
  let worst = 0;
  let previous = -1;
  for (let v = 0; v <= 600_000; v += v < 5000 ? 1 : 37) {
    const b = bucketOf(v);
    expect(b).toBeGreaterThanOrEqual(previous);
    previous = b;
    const reported = bucketValue(b);
    if (v === 0) expect(reported).toBe(0);
    else worst = Math.max(worst, Math.abs(reported - v) / v);
  }
  expect(worst).toBeLessThanOrEqual(RELATIVE_ERROR + 1e-12);
  expect(worst).toBeGreaterThan(RELATIVE_ERROR * 0.9); // the bound is tight, not loose
});
