/**
 * Budgets hold under concurrency: two gateway instances share one Postgres and one Redis (each
 * with its own Redis connection on the same prefix); a budget worth exactly N requests gets
 * 20×N concurrent requests spread over both → exactly N succeed, the rest get 402, and the
 * recorded spend never exceeds the limit. The same for a key limit, and again after the Redis
 * counters are deleted mid-test (they are rebuilt from the usage table, never double-counted).
 */
import request from 'supertest';
import { DATABASE_URL, REDIS_URL, deleteRedisPrefix, describeIf } from '../helpers/services';
import { bearer, createInferenceKey, type TestGateway } from '../helpers/gateway';
import { startSpendPair, type SpendPair } from './budgets-helpers';
import type { Database } from '../../src/store/db';
import type { RedisKv } from '../../src/kv/redis';

const N = 5;
const COST = 0.01;

describeIf(REDIS_URL && DATABASE_URL)('budgets under concurrency: two instances, one Redis, one Postgres', () => {
  let pair: SpendPair;
  let db: Database;
  let kv1: RedisKv;
  let gw: TestGateway;
  let urls: string[];
  let seq = 0;

  beforeAll(async () => {
    pair = await startSpendPair();
    ({ db, kv1, gw, urls } = pair);
  });
  afterAll(() => pair.close());

  /** Fire `count` spend requests at once, alternating instances and `secrets`; returns statuses. */
  async function burst(secrets: string | string[], count: number): Promise<number[]> {
    const list = Array.isArray(secrets) ? secrets : [secrets];
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const res = await fetch(`${urls[i % 2]}/test/spend`, {
          method: 'POST',
          headers: { authorization: bearer(list[i % list.length] as string), 'content-type': 'application/json' },
          body: JSON.stringify({ estimate: COST }),
        });
        await res.arrayBuffer();
        return res.status;
      }),
    );
  }
  const tally = (statuses: number[]) => ({
    ok: statuses.filter((s) => s === 200).length,
    refused: statuses.filter((s) => s === 402).length,
  });

  async function recorded(column: 'workspace_id' | 'key_hash', value: string): Promise<number> {
    const rows = await db.query<{ s: number }>(
      `SELECT COALESCE(SUM(cost_usd), 0)::double precision AS s FROM generations WHERE ${column} = $1`,
      [value],
    );
    return Number(rows[0]?.s);
  }
  async function workspaceWithBudget(limitUsd: number | null): Promise<{ id: string; slug: string }> {
    const slug = `c${++seq}`;
    const res = await request(gw.app)
      .post('/api/v1/workspaces')
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ name: slug, slug })
      .expect(201);
    if (limitUsd !== null) {
      await request(gw.app)
        .put(`/api/v1/workspaces/${slug}/budgets/daily`)
        .set('Authorization', bearer(gw.mgmtKey))
        .send({ limit_usd: limitUsd })
        .expect(200);
    }
    return { id: res.body.data.id, slug };
  }

  test(`workspace budget worth ${N} requests: ${20 * N} concurrent → exactly ${N} succeed`, async () => {
    const ws = await workspaceWithBudget(N * COST);
    const keys = await Promise.all(
      [1, 2, 3].map((i) => createInferenceKey(gw, { name: `k${i}`, workspace_id: ws.slug })),
    );
    const statuses = await burst(
      keys.map((k) => k.secret),
      20 * N,
    );
    expect(tally(statuses)).toEqual({ ok: N, refused: 19 * N });
    const spent = await recorded('workspace_id', ws.id);
    expect(spent).toBeLessThanOrEqual(N * COST + 1e-12);
    expect(spent).toBeCloseTo(N * COST, 12);
  });

  test(`key limit worth ${N} requests: ${20 * N} concurrent → exactly ${N} succeed`, async () => {
    const ws = await workspaceWithBudget(null);
    const key = await createInferenceKey(gw, {
      name: 'capped',
      workspace_id: ws.slug,
      limit: N * COST,
      limit_reset: 'monthly',
    });
    const statuses = await burst(key.secret, 20 * N);
    expect(tally(statuses)).toEqual({ ok: N, refused: 19 * N });
    const spent = await recorded('key_hash', key.hash);
    expect(spent).toBeLessThanOrEqual(N * COST + 1e-12);
    expect(spent).toBeCloseTo(N * COST, 12);
  });

  test('Redis counters deleted mid-test → rebuilt from usage, still exactly the limit', async () => {
    const ws = await workspaceWithBudget(N * COST);
    const key = await createInferenceKey(gw, { name: 'both', workspace_id: ws.slug, limit: (N + 1) * COST });
    const first = await burst(key.secret, 2);
    expect(tally(first)).toEqual({ ok: 2, refused: 0 });
    await deleteRedisPrefix(kv1.prefix);
    const statuses = await burst(key.secret, 20 * N);
    expect(tally(statuses)).toEqual({ ok: N - 2, refused: 20 * N - (N - 2) });
    const spent = await recorded('workspace_id', ws.id);
    expect(spent).toBeCloseTo(N * COST, 12);
    // The key limit (N+1) was rebuilt too: lift the workspace budget and exactly one more fits.
    await request(gw.app)
      .delete(`/api/v1/workspaces/${ws.slug}/budgets/daily`)
      .set('Authorization', bearer(gw.mgmtKey))
      .expect(200);
    const after = await burst(key.secret, 4 * N);
    expect(tally(after)).toEqual({ ok: 1, refused: 4 * N - 1 });
    expect(await recorded('key_hash', key.hash)).toBeCloseTo((N + 1) * COST, 12);
  });
});
