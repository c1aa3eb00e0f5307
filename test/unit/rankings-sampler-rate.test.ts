/**
 * The rankings sampler's rate adapts to traffic: at most about `maxPerSecond` samples a second
 * whatever the request rate, each weighted by 1 / the rate it was drawn at, so the upsampled
 * estimate stays right while classification costs a bounded share of a core.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { RankingsSampler, type Classification } from '../../src/datasets/sampler';
import { Metrics } from '../../src/observability/metrics';
import { createLogger } from '../../src/observability/logger';
import type { Database } from '../../src/store/db';

/** A database that records the weights of stored samples. */
function recordingDb(weights: number[]): Database {
  return {
    query: (_sql: string, params: unknown[]) => Promise.resolve(void weights.push(params[4] as number)),
  } as unknown as Database;
}

async function run(requestsPerSecond: number, seconds: number, rate: number, maxPerSecond: number) {
  const weights: number[] = [];
  const clock = { now: 1_000 };
  let draw = 0;
  // An even spread of draws in [0, 1), so the share sampled equals the rate used.
  const random = () => (draw++ * 0.6180339887) % 1;
  const classify = (): Promise<Classification> => Promise.resolve({ languageType: 'natural', category: null });
  const sampler = new RankingsSampler(
    recordingDb(weights),
    classify,
    { rate, maxPerSecond, queueMax: 100_000, random, clock: () => clock.now, modelId: (m) => m },
    new Metrics(),
    createLogger('silent'),
  );
  const perSecond: number[] = [];
  for (let s = 0; s < seconds; s++) {
    const before = weights.length;
    for (let i = 0; i < requestsPerSecond; i++) {
      clock.now += 1000 / requestsPerSecond;
      const res = new EventEmitter();
      sampler.offer(res as unknown as ServerResponse, {
        orgId: 'org',
        model: 'model',
        input: 'some text to classify',
        tokens: 4,
      });
      res.emit('finish');
    }
    await sampler.flush();
    perSecond.push(weights.length - before);
  }
  return { weights, perSecond };
}

test('light traffic is sampled at the configured rate, weight 1 / rate', async () => {
  const { weights } = await run(100, 3, 0.05, 10);
  expect(weights.length).toBeGreaterThanOrEqual(12);
  expect(weights.length).toBeLessThanOrEqual(18);
  for (const w of weights) expect(w).toBeCloseTo(20, 6);
});

test('heavy traffic is sampled at about maxPerSecond, and the weights still add up to the traffic', async () => {
  const { weights, perSecond } = await run(5_000, 6, 0.05, 10);
  // After the first second (sampled at the configured rate), about 10 a second.
  for (const n of perSecond.slice(2)) {
    expect(n).toBeGreaterThanOrEqual(5);
    expect(n).toBeLessThanOrEqual(20);
  }
  // Each sample stands for 1 / (rate used) requests: together, about every request offered.
  const estimated = weights.reduce((a, b) => a + b, 0);
  expect(estimated / 30_000).toBeGreaterThan(0.8);
  expect(estimated / 30_000).toBeLessThan(1.2);
});
