/**
 * Per-key rate limiting through HTTP: 429 envelope with Retry-After, the standard headers and
 * the hosted service's X-RateLimit-* headers, independence of keys, an exact shared count
 * across two app instances on one Redis, the configured behaviour (open or closed) when Redis
 * is unreachable, counted in a metric and logged as JSON, and recovery when a Redis that was
 * down at start comes up.
 */
import { PassThrough } from 'node:stream';
import request from 'supertest';
import {
  REDIS_URL,
  deleteRedisPrefix,
  describeIf,
  openTestPglite,
  openTestRedisKv,
  uniqueId,
} from '../helpers/services';
import {
  bearer,
  createInferenceKey,
  createTestGateway,
  gatewayApp,
  testConfig,
  type TestGateway,
} from '../helpers/gateway';
import type { ConfigOverrides } from '../../src/config';
import { tcpProxy } from '../../testkit/tcp-proxy';
import type { Database } from '../../src/store/db';
import { MemoryKv } from '../../src/kv/memory';
import { RedisKv } from '../../src/kv/redis';
import { assembleDeps } from '../../src/deps';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/observability/logger';
import { provisionOrg } from '../../src/orgs/provision';
import { eventually } from '../helpers/eventually';

let db: Database;
beforeAll(async () => {
  db = await openTestPglite();
});
afterAll(() => db.close());

describe('embedded (memory store)', () => {
  test('the (limit+1)th request in a window is refused with the 429 envelope', async () => {
    const gw = await createTestGateway(db, new MemoryKv(`t:${uniqueId()}:`), {
      rateLimit: { limit: 3, windowMs: 60000 },
    });
    for (let i = 0; i < 3; i++) {
      const ok = await request(gw.app).get('/api/v1/key').set('Authorization', bearer(gw.mgmtKey));
      expect(ok.status).toBe(200);
      expect(ok.headers['x-ratelimit-limit']).toBeUndefined(); // only on 429s, as on the hosted service
      expect(ok.headers.ratelimit).toMatch(/limit=3, remaining=\d+, reset=\d+/);
      expect(ok.headers['ratelimit-policy']).toBe('3;w=60');
    }
    const res = await request(gw.app).get('/api/v1/key').set('Authorization', bearer(gw.mgmtKey));
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe(429);
    expect(res.body.error.message).toBe('Rate limit exceeded');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(res.body.error.metadata.headers['X-RateLimit-Limit']).toBe('3');
    expect(res.body.error.metadata.headers['X-RateLimit-Remaining']).toBe('0');
    expect(Number(res.body.error.metadata.headers['X-RateLimit-Reset'])).toBeGreaterThan(Date.now());
    // The same values as real response headers, Reset in epoch milliseconds as a string.
    expect(res.headers['x-ratelimit-limit']).toBe('3');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect(res.headers['x-ratelimit-reset']).toBe(res.body.error.metadata.headers['X-RateLimit-Reset']);
    expect(res.headers['x-ratelimit-reset']).toMatch(/^\d{13}$/);
    expect(Number(res.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(Date.now() + 60000);
    const metrics = await gw.deps.metrics.registry.getSingleMetricAsString('switchyard_rate_limited_total');
    expect(metrics).toContain('switchyard_rate_limited_total{limiter="api"} 1');
  });

  test('limits are per key', async () => {
    const gw = await createTestGateway(db, new MemoryKv(`t:${uniqueId()}:`), {
      rateLimit: { limit: 2, windowMs: 60000 },
    });
    const other = await createInferenceKey(gw); // 1 request of the management key
    await request(gw.app).get('/api/v1/key').set('Authorization', bearer(gw.mgmtKey)).expect(200);
    await request(gw.app).get('/api/v1/key').set('Authorization', bearer(gw.mgmtKey)).expect(429);
    await request(gw.app).get('/api/v1/key').set('Authorization', bearer(other.secret)).expect(200);
  });

  test('health probes are outside the limiter', async () => {
    const gw = await createTestGateway(db, new MemoryKv(`t:${uniqueId()}:`), {
      rateLimit: { limit: 1, windowMs: 60000 },
    });
    for (let i = 0; i < 5; i++) await request(gw.app).get('/healthz').expect(200);
  });
});

/** Two app instances (replicas) on one Redis prefix, an inference key, and `run`; then both closed. */
async function withTwoReplicas(
  rateLimit: ConfigOverrides['rateLimit'],
  run: (r: { a: TestGateway; b: Awaited<ReturnType<typeof gatewayApp>>; secret: string }) => Promise<void>,
): Promise<void> {
  const prefix = `t:${uniqueId()}:`;
  const kvA = await openTestRedisKv(prefix);
  const kvB = await openTestRedisKv(prefix);
  try {
    const a = await createTestGateway(db, kvA, { rateLimit });
    const b = await gatewayApp(db, kvB, { rateLimit });
    const { secret } = await createInferenceKey(a); // 1 request counted for the management key only
    await run({ a, b, secret });
  } finally {
    await kvA.close();
    await kvB.close();
  }
}

describeIf(REDIS_URL)('shared Redis store', () => {
  test('two app instances sharing one Redis allow exactly the configured number of requests', async () => {
    const limit = 10;
    await withTwoReplicas({ limit, windowMs: 60000 }, async ({ a, b, secret }) => {
      const calls = Array.from({ length: 3 * limit }, (_, i) =>
        request(i % 2 === 0 ? a.app : b.app)
          .get('/api/v1/key')
          .set('Authorization', bearer(secret)),
      );
      const statuses = (await Promise.all(calls)).map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
      expect(statuses.filter((s) => s === 429)).toHaveLength(2 * limit);
    });
  });
});

describe('when the rate-limit store is unreachable', () => {
  let dead: RedisKv;
  beforeAll(async () => {
    dead = await RedisKv.connect({ url: 'redis://127.0.0.1:1', prefix: 't:', commandTimeoutMs: 200 });
  });
  afterAll(() => dead.close());

  test('fail open (default): requests pass and the failure is counted', async () => {
    const { app, deps } = await gatewayApp(db, dead, { rateLimit: { limit: 1, failMode: 'open' } });
    const gw = await createTestGateway(db, new MemoryKv(`t:${uniqueId()}:`));
    for (let i = 0; i < 3; i++)
      await request(app).get('/api/v1/key').set('Authorization', bearer(gw.mgmtKey)).expect(200);
    const metric = await deps.metrics.registry.getSingleMetricAsString('switchyard_rate_limit_store_errors_total');
    expect(metric).toContain('switchyard_rate_limit_store_errors_total{limiter="api",action="fail_open"} 3');
  });

  test('fail closed: 503 envelope with Retry-After, counted', async () => {
    const { app, deps } = await gatewayApp(db, dead, { rateLimit: { limit: 100, failMode: 'closed' } });
    const gw = await createTestGateway(db, new MemoryKv(`t:${uniqueId()}:`));
    const res = await request(app).get('/api/v1/key').set('Authorization', bearer(gw.mgmtKey));
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 503, message: 'Service temporarily unavailable' });
    expect(res.headers['retry-after']).toBe('1');
    const metric = await deps.metrics.registry.getSingleMetricAsString('switchyard_rate_limit_store_errors_total');
    expect(metric).toContain('action="fail_closed"} 1');
  });
});

test('fail open logs through the gateway logger as JSON, never to the console, with no validation warnings', async () => {
  const dead = await RedisKv.connect({ url: 'redis://127.0.0.1:1', prefix: 't:', commandTimeoutMs: 200 });
  const stream = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean))
      lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  const consoleWarn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    const deps = await assembleDeps(
      testConfig({ log: { level: 'warn' }, rateLimit: { limit: 5, failMode: 'open' } }),
      db,
      dead,
      {
        logger: createLogger('warn', stream),
      },
    );
    const org = await db.transaction((tx) => provisionOrg(tx, 'Log Org'));
    const app = createApp(deps);
    for (let i = 0; i < 3; i++) {
      const res = await request(app).get('/api/v1/key').set('Authorization', bearer(org.secret)).expect(200);
      expect(res.headers.ratelimit).toMatch(/limit=5, remaining=\d+, reset=\d+/);
    }
    await new Promise((r) => setImmediate(r));
    expect(consoleError).not.toHaveBeenCalled();
    expect(consoleWarn).not.toHaveBeenCalled();
    expect(JSON.stringify(lines)).not.toMatch(/ERR_ERL_/);
    // The outage is logged once (not per request), with the policy applied.
    const outage = lines.filter((l) => l.message === 'rate limit store unavailable');
    expect(outage).toHaveLength(1);
    expect(outage[0]).toMatchObject({
      level: 'warn',
      limiter: 'api',
      fail_mode: 'open',
      error: { message: expect.any(String) },
    });
  } finally {
    consoleError.mockRestore();
    consoleWarn.mockRestore();
    await dead.close();
  }
});

describeIf(REDIS_URL)('Redis unreachable when the gateway starts, reachable later', () => {
  test.each(['open', 'closed'] as const)(
    'fail %s: once Redis is up the limit is enforced: exactly N pass, then 429',
    async (failMode) => {
      const target = new URL(REDIS_URL as string);
      const proxy = await tcpProxy(target.hostname, Number(target.port || 6379));
      const prefix = `t:${uniqueId()}:`;
      // Nothing listens on the proxy's port yet: the limiter's store initialises against a dead Redis.
      const kv = await RedisKv.connect({ url: `redis://127.0.0.1:${proxy.port}`, prefix, commandTimeoutMs: 500 });
      try {
        const limit = 3;
        const gw = await createTestGateway(db, kv, { rateLimit: { limit, windowMs: 60000, failMode } });
        const call = () => request(gw.app).get('/api/v1/key').set('Authorization', bearer(gw.mgmtKey));
        expect((await call()).status).toBe(failMode === 'open' ? 200 : 503);

        await proxy.open();
        await eventually(() => kv.ping(), { timeoutMs: 10_000 });
        const statuses: number[] = [];
        for (let i = 0; i < limit + 2; i++) statuses.push((await call()).status);
        expect(statuses).toEqual([200, 200, 200, 429, 429]);
        const metric = await gw.deps.metrics.registry.getSingleMetricAsString('switchyard_rate_limited_total');
        expect(metric).toContain('switchyard_rate_limited_total{limiter="api"} 2');
      } finally {
        await kv.close();
        await proxy.close();
        await deleteRedisPrefix(prefix);
      }
    },
  );
});
