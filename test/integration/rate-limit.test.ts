/**
 * Per-key rate limiting through HTTP: 429 envelope with Retry-After and standard headers,
 * independence of keys, an exact shared count across two app instances on one Redis, and the
 * configured behaviour (open or closed) when Redis is unreachable, counted in a metric.
 */
import request from 'supertest';
import { REDIS_URL, describeIf, openTestPglite, openTestRedisKv, uniqueId } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, gatewayApp } from '../helpers/gateway';
import type { Database } from '../../src/store/db';
import { MemoryKv } from '../../src/kv/memory';
import { RedisKv } from '../../src/kv/redis';

let db: Database;
beforeAll(async () => {
  db = await openTestPglite();
});
afterAll(() => db.close());

describe('embedded (memory store)', () => {
  test('the (limit+1)th request in a window is refused with the 429 envelope', async () => {
    const gw = await createTestGateway(db, new MemoryKv(`t:${uniqueId()}:`), { rateLimit: { limit: 3, windowMs: 60000 } });
    for (let i = 0; i < 3; i++) {
      const ok = await request(gw.app).get('/api/v1/key').set('Authorization', bearer(gw.mgmtKey));
      expect(ok.status).toBe(200);
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
    const metrics = await gw.deps.metrics.registry.getSingleMetricAsString('switchyard_rate_limited_total');
    expect(metrics).toContain('switchyard_rate_limited_total{limiter="api"} 1');
  });

  test('limits are per key', async () => {
    const gw = await createTestGateway(db, new MemoryKv(`t:${uniqueId()}:`), { rateLimit: { limit: 2, windowMs: 60000 } });
    const other = await createInferenceKey(gw); // 1 request of the management key
    await request(gw.app).get('/api/v1/key').set('Authorization', bearer(gw.mgmtKey)).expect(200);
    await request(gw.app).get('/api/v1/key').set('Authorization', bearer(gw.mgmtKey)).expect(429);
    await request(gw.app).get('/api/v1/key').set('Authorization', bearer(other.secret)).expect(200);
  });

  test('health probes are outside the limiter', async () => {
    const gw = await createTestGateway(db, new MemoryKv(`t:${uniqueId()}:`), { rateLimit: { limit: 1, windowMs: 60000 } });
    for (let i = 0; i < 5; i++) await request(gw.app).get('/healthz').expect(200);
  });
});

describeIf(REDIS_URL)('shared Redis store', () => {
  test('two app instances sharing one Redis allow exactly the configured number of requests', async () => {
    const prefix = `t:${uniqueId()}:`;
    const kvA = await openTestRedisKv(prefix);
    const kvB = await openTestRedisKv(prefix);
    try {
      const limit = 10;
      const a = await createTestGateway(db, kvA, { rateLimit: { limit, windowMs: 60000 } });
      const b = await gatewayApp(db, kvB, { rateLimit: { limit, windowMs: 60000 } });
      const { secret } = await createInferenceKey(a); // 1 request counted for the management key only
      const calls = Array.from({ length: 3 * limit }, (_, i) =>
        request(i % 2 === 0 ? a.app : b.app).get('/api/v1/key').set('Authorization', bearer(secret)),
      );
      const statuses = (await Promise.all(calls)).map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
      expect(statuses.filter((s) => s === 429)).toHaveLength(2 * limit);
    } finally {
      await kvA.close();
      await kvB.close();
    }
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
    for (let i = 0; i < 3; i++) await request(app).get('/api/v1/key').set('Authorization', bearer(gw.mgmtKey)).expect(200);
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
