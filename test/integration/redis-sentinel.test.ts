/**
 * The gateway through Redis Sentinel (a local primary and one Sentinel started by this file):
 * the Kv finds the primary by name and runs scripts and pub/sub on it, and the rate limiter
 * counts there, through HTTP.
 */
import request from 'supertest';
import { Redis } from 'ioredis';
import { openTestPglite, uniqueId } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway } from '../helpers/gateway';
import { requireClusterBinaries } from '../helpers/redis-cluster';
import { startLocalSentinel, type LocalSentinel } from '../helpers/redis-sentinel';
import { RedisKv } from '../../src/kv/redis';
import { FAILURE } from '../../src/routing/breaker-scripts';
import type { Database } from '../../src/store/db';

const runnable = requireClusterBinaries();
(runnable ? describe : describe.skip)('through Redis Sentinel', () => {
  let rig: LocalSentinel;
  let db: Database;
  const kvs: RedisKv[] = [];
  const prefix = `t:${uniqueId()}:`;

  beforeAll(async () => {
    rig = await startLocalSentinel();
    db = await openTestPglite();
    for (let i = 0; i < 2; i++)
      kvs.push(
        await RedisKv.connect({
          sentinel: { sentinels: [rig.sentinel], name: rig.name },
          prefix,
          commandTimeoutMs: 5000,
        }),
      );
  }, 30_000);
  afterAll(async () => {
    await Promise.all(kvs.map((kv) => kv.close()));
    await db?.close();
    await rig?.stop();
  });

  test('scripts run on the primary the Sentinel names, and pub/sub reaches the other connection', async () => {
    const [a, b] = kvs as [RedisKv, RedisKv];
    await a.ping();
    await a.run(FAILURE, ['cb:{sentinel-check}', 'cb:{sentinel-check}:org-a'], [Date.now(), 5, 1000, 0, 'org-a']);
    const direct = new Redis({ host: '127.0.0.1', port: rig.primaryPort });
    try {
      expect(await direct.hget(`${prefix}cb:{sentinel-check}`, 'f')).toBe('1');
      expect(await direct.hget(`${prefix}cb:{sentinel-check}:org-a`, 'f')).toBe('1');
    } finally {
      direct.disconnect();
    }
    let heard!: (m: string) => void;
    const got = new Promise<string>((resolve) => (heard = resolve));
    // subscribe resolves once the primary has confirmed the SUBSCRIBE: one publish is enough.
    await b.subscribe('hello', (m) => heard(m));
    await a.publish('hello', 'world');
    expect(await got).toBe('world');
  });

  test('the per-key rate limit counts on the Sentinel-managed primary, through HTTP', async () => {
    const gw = await createTestGateway(db, kvs[0]!, { rateLimit: { limit: 3, windowMs: 600_000 } });
    try {
      const { secret } = await createInferenceKey(gw);
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await request(gw.app).get('/api/v1/key').set('Authorization', bearer(secret))).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    } finally {
      await gw.deps.recorder.close().catch(() => undefined);
      await gw.deps.routing.close();
    }
  });
});
