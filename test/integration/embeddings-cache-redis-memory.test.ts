/**
 * A full embeddings cache never hurts budgets. On a Redis it shares with budgets (run with
 * `maxmemory-policy noeviction`, so budget keys are never evicted), the gateway bounds the cache to
 * `embeddingsCache.maxBytes` itself: once that much is written within a TTL, new entries are not
 * stored, and Redis keeps room for budgets. With `embeddingsCache.redisUrl` the cache lives on a
 * Redis of its own, where a full memory only fails cache writes. Each test starts its own
 * redis-server with a low `maxmemory` (never the shared one on 6379), killed at the end.
 */
import request from 'supertest';
import { bearer } from '../helpers/gateway';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { memoryInfo, startLocalRedis, type LocalRedis } from '../helpers/redis-server';
import { REDIS_URL, describeIf, openTestRedisKv, uniqueId } from '../helpers/services';
import { RedisKv } from '../../src/kv/redis';

const SMALL = 'openai/text-embedding-3-small';
/** Floats per vector: about 12 kB of float text per cached input. */
const DIMS = 2048;
const PER_REQUEST = 16;
const REQUESTS = 24;

/** The cache's write outcomes so far, by outcome. */
async function writeOutcomes(h: GatewayHarness): Promise<Record<string, number>> {
  const { values } = await h.gw.deps.metrics.embeddingsCacheWrites.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.outcome), v.value]));
}

/** Once every cache write of the answers so far has ended: the outcomes, which must account for `n` entries. */
async function writesSettled(h: GatewayHarness, n: number): Promise<Record<string, number>> {
  await h.gw.deps.embeddingsCache.settled();
  const outcomes = await writeOutcomes(h);
  expect(Object.values(outcomes).reduce((a, b) => a + b, 0)).toBe(n);
  return outcomes;
}

async function enableCacheWithBudget(h: GatewayHarness): Promise<void> {
  const ws = h.gw.defaultWorkspaceId;
  const on = await request(h.gw.app)
    .patch(`/api/v1/workspaces/${ws}`)
    .set('Authorization', bearer(h.gw.mgmtKey))
    .send({ is_embeddings_cache_enabled: true });
  const budget = await request(h.gw.app)
    .put(`/api/v1/workspaces/${ws}/budgets/daily`)
    .set('Authorization', bearer(h.gw.mgmtKey))
    .send({ limit_usd: 100 });
  expect([on.status, budget.status]).toEqual([200, 200]);
}

/** `REQUESTS` budgeted requests of `PER_REQUEST` new inputs each: their statuses. */
async function fillCache(h: GatewayHarness, tag: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let r = 0; r < REQUESTS; r++) {
    const input = Array.from({ length: PER_REQUEST }, (_, i) => `${tag} ${r} ${i}`);
    statuses.push((await h.post({ model: SMALL, input, dimensions: DIMS })).status);
  }
  return statuses;
}

describe('the embeddings cache on the Redis that holds budgets (noeviction, low maxmemory)', () => {
  let redis: LocalRedis;
  let h: GatewayHarness;
  beforeAll(async () => {
    redis = await startLocalRedis(['--maxmemory-policy', 'noeviction']);
    const kv = await RedisKv.connect({ url: redis.url, prefix: `t:${uniqueId()}:`, commandTimeoutMs: 2000 });
    // No budget leases: every budgeted request reserves and settles on Redis itself.
    h = await startGatewayHarness({
      kv,
      overrides: { embeddingsCache: { maxBytes: 1024 * 1024 }, budgets: { leaseRequests: 0 } },
    });
    await enableCacheWithBudget(h);
    // Room for what the test writes besides the cache, but not for ~4.5 MB of cache entries.
    await redis.admin.config(
      'SET',
      'maxmemory',
      String((await memoryInfo(redis.admin, 'used_memory')) + 3 * 1024 * 1024),
    );
  });
  afterAll(async () => {
    await h?.close();
    await redis?.stop();
  });

  test('a full cache never fails a budgeted request: the gateway stops storing at its byte bound', async () => {
    const statuses = await fillCache(h, 'shared');
    expect(statuses).toEqual(statuses.map(() => 200));
    const outcomes = await writesSettled(h, REQUESTS * PER_REQUEST);
    // Stored up to the bound (1 MiB of ~12 kB entries), the rest refused by the gateway, not by Redis.
    expect(outcomes.stored).toBeGreaterThan(40);
    expect(outcomes.stored).toBeLessThan((REQUESTS * PER_REQUEST) / 2);
    expect(outcomes.full).toBe(REQUESTS * PER_REQUEST - outcomes.stored!);
    expect(outcomes.failed ?? 0).toBe(0);
    expect(await memoryInfo(redis.admin, 'used_memory')).toBeLessThan(await memoryInfo(redis.admin, 'maxmemory'));
    // Budgeted requests still reserve and settle, cached or not.
    const hit = await h.post({ model: SMALL, input: ['shared 0 0', 'shared 0 1'], dimensions: DIMS });
    expect([hit.status, hit.headers['x-switchyard-cache']]).toEqual([200, 'HIT']);
    const fresh = await h.post({ model: SMALL, input: 'after the cache is full', dimensions: DIMS });
    expect([fresh.status, fresh.headers['x-switchyard-cache']]).toEqual([200, 'MISS']);
    const status = await request(h.gw.app)
      .get(`/api/v1/workspaces/${h.gw.defaultWorkspaceId}/budgets`)
      .set('Authorization', bearer(h.gw.mgmtKey));
    expect(status.status).toBe(200);
    // Once an entry lifetime has passed on the gateway's clock, the counted bytes have expired: writing resumes.
    await h.gw.deps.embeddingsCache.settled();
    const before = await writeOutcomes(h);
    h.clock.now += 8 * 24 * 3600 * 1000;
    await h.post({ model: SMALL, input: 'a week later', dimensions: DIMS }).expect(200);
    await h.gw.deps.embeddingsCache.settled();
    expect(await writeOutcomes(h)).toEqual({ ...before, stored: before.stored! + 1 });
  });
});

describeIf(REDIS_URL)('the embeddings cache on a Redis of its own (embeddingsCache.redisUrl)', () => {
  let cacheRedis: LocalRedis;
  let h: GatewayHarness | undefined;
  let kv: RedisKv | undefined;
  let prefix: string;
  beforeAll(async () => {
    cacheRedis = await startLocalRedis(['--maxmemory-policy', 'noeviction']);
    kv = await openTestRedisKv();
    prefix = kv.prefix;
    h = await startGatewayHarness({ kv, overrides: { embeddingsCache: { redisUrl: cacheRedis.url } } });
    await enableCacheWithBudget(h);
    await cacheRedis.admin.config(
      'SET',
      'maxmemory',
      String((await memoryInfo(cacheRedis.admin, 'used_memory')) + 1024 * 1024),
    );
  });
  afterAll(async () => {
    if (h) await h.close();
    else await kv?.close();
    await cacheRedis?.stop();
  });

  test('entries live there, never on the main Redis; when it is full, only cache writes fail', async () => {
    if (!h) throw new Error('no gateway');
    await h.post({ model: SMALL, input: 'own redis' }).expect(200);
    await writesSettled(h, 1);
    expect((await h.post({ model: SMALL, input: 'own redis' })).headers['x-switchyard-cache']).toBe('HIT');
    const [, own] = await cacheRedis.admin.scan('0', 'MATCH', `${prefix}ec:*`, 'COUNT', 1000);
    expect(own.length).toBeGreaterThan(0);
    const [, shared] = await (kv as RedisKv).connection.scan('0', 'MATCH', `${prefix}ec:*`, 'COUNT', 100000);
    expect(shared).toEqual([]);
    // No gateway bound here (the cache's Redis bounds itself): it fills up, and Redis refuses writes.
    const statuses = await fillCache(h, 'own');
    expect(statuses).toEqual(statuses.map(() => 200));
    const outcomes = await writesSettled(h, 1 + REQUESTS * PER_REQUEST);
    expect(outcomes.failed).toBeGreaterThan(0);
    expect(outcomes.full ?? 0).toBe(0);
  });
});
