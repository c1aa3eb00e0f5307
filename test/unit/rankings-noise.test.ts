/**
 * The installation rankings' noise (src/datasets/noise.ts): the discrete Laplace draws have the
 * distribution differential privacy needs (P(k) ∝ e^(−|k|/scale), centred, integers), the
 * secure uniform source stays in (0, 1], and the privacy settings are validated with the rest of
 * the configuration.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { discreteLaplace, secureUniform } from '../../src/datasets/noise';
import { loadConfig } from '../../src/config';
import { tempDir } from '../helpers/temp-dir';

/** A small seeded generator (mulberry32), so the statistics below are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 2 ** 32;
  };
}

describe('discreteLaplace', () => {
  const N = 200_000;
  const SCALE = 10;
  const draws = Array.from(
    { length: N },
    (
      (u) => () =>
        discreteLaplace(SCALE, u)
    )(seeded(43)),
  );

  test('integers, centred on 0, with the mean absolute value of the distribution', () => {
    expect(draws.every(Number.isInteger)).toBe(true);
    const q = Math.exp(-1 / SCALE);
    const meanAbs = draws.reduce((n, d) => n + Math.abs(d), 0) / N;
    // E|X| = 2q / (1 − q²) for the two-sided geometric distribution (≈ 9.98 at scale 10).
    expect(meanAbs).toBeCloseTo((2 * q) / (1 - q * q), 0);
    expect(Math.abs(draws.reduce((n, d) => n + d, 0) / N)).toBeLessThan(0.15);
  });

  test('P(k) / P(k + 1) = e^(1/scale): each unit of tokens changes the odds by the same factor (what ε-DP needs)', () => {
    const count = (k: number) => draws.filter((d) => d === k).length;
    for (const k of [0, 5, -5, 10]) {
      const ratio = count(k) / count(k + Math.sign(k || 1));
      expect(ratio).toBeGreaterThan(Math.exp(1 / SCALE) * 0.85);
      expect(ratio).toBeLessThan(Math.exp(1 / SCALE) * 1.15);
    }
  });

  test("no noise at scale 0, and finite draws at the uniform source's extremes", () => {
    expect(discreteLaplace(0, () => 0.5)).toBe(0);
    expect(discreteLaplace(5, () => 1)).toBe(0);
    expect(Number.isFinite(discreteLaplace(5, () => 0))).toBe(true);
  });

  test('the secure source draws in (0, 1]', () => {
    const us = Array.from({ length: 10_000 }, secureUniform);
    expect(us.every((u) => u > 0 && u <= 1)).toBe(true);
    expect(new Set(us).size).toBeGreaterThan(9_990);
  });
});

describe('privacy settings', () => {
  test('defaults, the SWITCHYARD_CONFIG file, and one error for every invalid value', () => {
    const withFile = (yaml: string) => {
      const file = path.join(tempDir('sy-rankings-'), 'site.yaml');
      writeFileSync(file, yaml);
      return { SWITCHYARD_CONFIG: file };
    };
    expect(loadConfig({}).rankings).toMatchObject({
      maxOrgShare: 0.5,
      clampTokens: 1_000_000,
      epsilon: 1,
      publishDelayMs: 3_600_000,
    });
    expect(
      loadConfig(withFile('rankings:\n  epsilon: 0.25\n  clampTokens: 5000\n  maxOrgShare: 0.4\n')).rankings,
    ).toMatchObject({ epsilon: 0.25, clampTokens: 5000, maxOrgShare: 0.4 });
    let message = '';
    try {
      loadConfig(withFile('rankings:\n  epsilon: 0\n  clampTokens: 0\n  maxOrgShare: 1.5\n'));
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/config\.rankings\.epsilon must/);
    expect(message).toMatch(/config\.rankings\.clampTokens must/);
    expect(message).toMatch(/config\.rankings\.maxOrgShare must/);
  });
});
