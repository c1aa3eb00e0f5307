/**
 * Issue 37 (Providers page): each organization's recent attempts per provider endpoint: counted in
 * process, flushed to the shared store, summed over the last hour across replicas, failures being
 * the upstream's fault only. Then through HTTP: `GET /providers` shows an organization its own
 * traffic's error rate and latency, and nobody else's.
 */
import request from 'supertest';
import { KVS } from '../helpers/services';
import { bearer, createInferenceKey } from '../helpers/gateway';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { EndpointStats } from '../../src/routing/endpoint-stats';
import { latencyBucket, latencyPercentiles } from '../../src/routing/latency-histogram';
import type { AttemptRecord } from '../../src/routing/run-with-fallback';
import { Metrics } from '../../src/observability/metrics';
import { createLogger } from '../../src/observability/logger';
import { provisionOrg } from '../../src/orgs/provision';
import type { Kv } from '../../src/kv/kv';

const attempt = (endpoint: string, outcome: AttemptRecord['outcome'], ms: number): AttemptRecord => ({
  provider: endpoint.split(':')[0] as string,
  outcome,
  status: null,
  endpoint,
  ms,
});

describe.each(KVS)('endpoint statistics on $name', (kvKind) => {
  let kv: Kv;
  const clock = { now: Date.UTC(2026, 10, 26, 12, 0, 30) };
  const deps = () => ({ clock: () => clock.now, logger: createLogger('silent'), metrics: new Metrics() });
  beforeAll(async () => {
    kv = await kvKind.open();
  });
  afterAll(async () => {
    await kv.close();
  });

  test('replicas add up; failures are the upstream faults; an hour is the window; organizations are apart', async () => {
    const a = new EndpointStats(kv, deps(), 3_600_000);
    const b = new EndpointStats(kv, deps(), 3_600_000);
    a.record('org-1', [attempt('deepinfra:baai/bge-m3', 'server', 40), attempt('together:baai/bge-m3', 'ok', 20)]);
    b.record('org-1', [attempt('deepinfra:baai/bge-m3', 'ok', 10), attempt('deepinfra:baai/bge-m3', 'client', 6)]);
    b.record('org-1', [
      attempt('deepinfra:baai/bge-m3', 'timeout', 100),
      attempt('deepinfra:baai/bge-m3', 'rate_limited', 4),
    ]);
    a.record('org-2', [attempt('deepinfra:baai/bge-m3', 'ok', 1)]);
    // Unflushed counts are read on their own replica only.
    expect((await a.read('org-1')).get('deepinfra:baai/bge-m3')).toEqual({
      attempts: 1,
      failures: 1,
      latencyMsSum: 40,
    });
    await Promise.all([a.flush(), b.flush()]);
    const both = await b.read('org-1');
    expect(both.get('deepinfra:baai/bge-m3')).toEqual({ attempts: 5, failures: 3, latencyMsSum: 160 });
    expect(both.get('together:baai/bge-m3')).toEqual({ attempts: 1, failures: 0, latencyMsSum: 20 });
    expect((await a.read('org-2')).get('deepinfra:baai/bge-m3')).toEqual({ attempts: 1, failures: 0, latencyMsSum: 1 });
    clock.now += 59 * 60_000;
    expect((await a.read('org-1')).get('deepinfra:baai/bge-m3')?.attempts).toBe(5);
    clock.now += 60_000;
    expect((await a.read('org-1')).size).toBe(0);
    await Promise.all([a.close(), b.close()]);
  });

  test("recent(): uptime over 5 minutes, 30 minutes and a day, upstream 429s apart; answered attempts' latency in buckets", async () => {
    const own = { now: Date.UTC(2026, 10, 26, 12, 10, 0) };
    const stats = new EndpointStats(kv, { ...deps(), clock: () => own.now }, 3_600_000);
    const e = 'nebius:baai/bge-m3';
    stats.record('org-r', [
      attempt(e, 'ok', 3),
      attempt(e, 'ok', 40),
      attempt(e, 'server', 100),
      attempt(e, 'rate_limited', 4),
    ]);
    const counts = (attempts: number, failures: number, rateLimited: number) => ({ attempts, failures, rateLimited });
    // Unflushed, then flushed: the same figures.
    for (const flushed of [false, true]) {
      if (flushed) await stats.flush();
      const r = (await stats.recent('org-r')).get(e);
      expect({ flushed, r }).toEqual({
        flushed,
        r: {
          last5m: counts(4, 2, 1),
          last30m: counts(4, 2, 1),
          lastDay: counts(4, 2, 1),
          latency30m: expect.any(Array),
        },
      });
      expect(r?.latency30m[latencyBucket(3)]).toBe(1);
      expect(r?.latency30m[latencyBucket(40)]).toBe(1);
      expect(r?.latency30m.reduce((a, n) => a + n, 0)).toBe(2); // failures and 429s have no latency sample
    }
    own.now += 10 * 60_000;
    stats.record('org-r', [attempt(e, 'ok', 7)]);
    await stats.flush();
    expect((await stats.recent('org-r')).get(e)).toMatchObject({
      last5m: counts(1, 0, 0),
      last30m: counts(5, 2, 1),
      lastDay: counts(5, 2, 1),
    });
    own.now += 3 * 3_600_000;
    expect((await stats.recent('org-r')).get(e)).toMatchObject({
      last5m: counts(0, 0, 0),
      last30m: counts(0, 0, 0),
      lastDay: counts(5, 2, 1),
    });
    expect(latencyPercentiles((await stats.recent('org-r')).get(e)?.latency30m ?? [])).toBeNull();
    own.now += 22 * 3_600_000; // the hour of the attempts is now more than a day back
    expect((await stats.recent('org-r')).get(e)).toBeUndefined();
    expect((await stats.recent('org-other')).size).toBe(0);
    await stats.close();
  });

  test('a write the store refuses is counted and logged once, and later writes go through', async () => {
    const d = deps();
    let refuse = true;
    const flaky: Kv = Object.create(kv, {
      run: {
        value: (...args: Parameters<Kv['run']>) => (refuse ? Promise.reject(new Error('store down')) : kv.run(...args)),
      },
    }) as Kv;
    const stats = new EndpointStats(flaky, d, 3_600_000);
    stats.record('org-3', [attempt('openai:openai/text-embedding-3-small', 'ok', 5)]);
    await stats.flush();
    stats.record('org-4', [attempt('openai:openai/text-embedding-3-small', 'ok', 5)]);
    await stats.flush();
    expect(await d.metrics.registry.getSingleMetricAsString('switchyard_endpoint_stats_write_failures_total')).toMatch(
      / 2$/m,
    );
    refuse = false;
    stats.record('org-3', [attempt('openai:openai/text-embedding-3-small', 'ok', 7)]);
    await stats.close();
    expect((await stats.read('org-3')).get('openai:openai/text-embedding-3-small')).toEqual({
      attempts: 1,
      failures: 0,
      latencyMsSum: 7,
    });
  });

  test('a read while a flush is being written counts its batch once: neither lost between memory and the store, nor twice', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The store takes its time over the flush's writes, as a busy Redis does.
    const slow: Kv = Object.create(kv, {
      run: {
        value: (...args: Parameters<Kv['run']>) =>
          args[0].name === 'endpoint_stats_add' ? held.then(() => kv.run(...args)) : kv.run(...args),
      },
    }) as Kv;
    const stats = new EndpointStats(slow, deps(), 3_600_000);
    const e = 'openai:openai/text-embedding-3-small';
    stats.record('org-5', [attempt(e, 'ok', 5), attempt(e, 'server', 9), attempt(e, 'ok', 6), attempt(e, 'ok', 4)]);
    const flushed = stats.flush();
    const reading = stats.read('org-5');
    stats.record('org-5', [attempt(e, 'ok', 1)]); // after the read was asked for: counted by it or the next one, never lost
    release();
    await flushed;
    const seen = (await reading).get(e);
    expect(seen?.attempts).toBeGreaterThanOrEqual(4);
    expect(seen?.attempts).toBeLessThanOrEqual(5);
    expect(seen?.failures).toBe(1);
    expect((await stats.read('org-5')).get(e)).toEqual({ attempts: 5, failures: 1, latencyMsSum: 25 });
    await stats.close();
    expect((await stats.read('org-5')).get(e)).toEqual({ attempts: 5, failures: 1, latencyMsSum: 25 });
  });
});

describe('GET /providers: recent attempts of the caller organization', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  test('a failed attempt and its fallback show in the error rate; another organization sees none of it', async () => {
    h.fleet.fakes.deepinfra!.queue({ status: 500 });
    expect(
      (await h.post({ model: 'baai/bge-m3', input: 'x', provider: { order: ['deepinfra', 'together'] } })).status,
    ).toBe(200);
    expect((await h.post({ model: 'baai/bge-m3', input: 'y', provider: { order: ['deepinfra'] } })).status).toBe(200);
    const mine = (await request(h.gw.app).get('/api/v1/providers').set('Authorization', bearer(h.key)).expect(200)).body
      .data;
    const deepinfra = mine.find((p: { slug: string }) => p.slug === 'deepinfra');
    const endpoint = deepinfra.endpoints.find((e: { model: string }) => e.model === 'baai/bge-m3');
    expect(endpoint.recent).toMatchObject({
      window_minutes: 60,
      attempts: 2,
      failures: 1,
      error_rate: 0.5,
      avg_latency_ms: expect.any(Number),
    });
    expect(deepinfra.recent).toMatchObject({ attempts: 2, failures: 1, error_rate: 0.5 });
    const together = mine.find((p: { slug: string }) => p.slug === 'together');
    expect(together.endpoints.find((e: { model: string }) => e.model === 'baai/bge-m3').recent).toMatchObject({
      attempts: 1,
      failures: 0,
      error_rate: 0,
    });

    const other = await h.gw.deps.db.transaction((tx) => provisionOrg(tx, 'Other Org'));
    const theirs = await createInferenceKey({ app: h.gw.app, mgmtKey: other.secret });
    const seen = (
      await request(h.gw.app).get('/api/v1/providers').set('Authorization', bearer(theirs.secret)).expect(200)
    ).body.data;
    for (const p of seen)
      expect(p.recent).toEqual({
        window_minutes: 60,
        attempts: 0,
        failures: 0,
        error_rate: null,
        avg_latency_ms: null,
      });
  });

  test('GET /models/{author}/{slug}/endpoints: uptime and latency of the caller organization only', async () => {
    h.fleet.fakes.nebius!.queue({ status: 503 });
    expect(
      (await h.post({ model: 'baai/bge-m3', input: 'z', provider: { order: ['nebius', 'together'] } })).status,
    ).toBe(200);
    const path = '/api/v1/models/baai/bge-m3/endpoints';
    const nebiusOf = (body: { data: { endpoints: Array<{ tag: string }> } }) =>
      body.data.endpoints.find((e) => e.tag === 'nebius');
    const mine = nebiusOf((await request(h.gw.app).get(path).set('Authorization', bearer(h.key)).expect(200)).body);
    expect(mine).toMatchObject({ uptime_last_5m: 0, uptime_last_30m: 0, uptime_last_1d: 0, latency_last_30m: null });
    const other = await h.gw.deps.db.transaction((tx) => provisionOrg(tx, 'Third Org'));
    const theirs = await createInferenceKey({ app: h.gw.app, mgmtKey: other.secret });
    const seen = nebiusOf(
      (await request(h.gw.app).get(path).set('Authorization', bearer(theirs.secret)).expect(200)).body,
    );
    expect(seen).toMatchObject({
      uptime_last_5m: null,
      uptime_last_30m: null,
      uptime_last_1d: null,
      latency_last_30m: null,
    });
  });
});
