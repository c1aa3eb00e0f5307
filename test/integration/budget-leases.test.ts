/**
 * Budget leases (src/budgets/leases.ts) over two instances sharing one Redis and one Postgres:
 * requests are admitted on replica-local leases while a budget has ample room (far fewer reserve
 * scripts than requests), a burst across both replicas still gets exactly the budget's worth,
 * and a request kept out only by the other replica's unused lease waits for it instead of being
 * refused early. Leases here are small (4 requests' worth) so that a test budget has room for them.
 */
import type { Redis } from 'ioredis';
import request from 'supertest';
import { DATABASE_URL, REDIS_URL, describeIf } from '../helpers/services';
import { bearer, createInferenceKey, type TestGateway } from '../helpers/gateway';
import { startSpendPair, type SpendPair } from './budgets-helpers';
import type { AppDeps } from '../../src/deps';
import type { Database } from '../../src/store/db';
import type { RedisKv } from '../../src/kv/redis';
import { hashSecret } from '../../src/keys/secrets';
import { LEASE_PREFIX } from '../../src/budgets/scripts/reserve';
import { until } from '../helpers/eventually';

const LEASE = { leaseRequests: 4, leaseMs: 200 };

describeIf(REDIS_URL && DATABASE_URL)('budget leases: two instances, one Redis, one Postgres', () => {
  let pair: SpendPair;
  let db: Database;
  let gw: TestGateway;
  let kv1: RedisKv;
  let instances: AppDeps[];
  let urls: string[];
  let seq = 0;

  beforeAll(async () => {
    pair = await startSpendPair({ budgets: LEASE });
    ({ db, gw, kv1, instances, urls } = pair);
  });
  afterAll(() => pair.close());

  async function spend(instance: number, secret: string, estimate: number): Promise<number> {
    const res = await fetch(`${urls[instance]}/test/spend`, {
      method: 'POST',
      headers: { authorization: bearer(secret), 'content-type': 'application/json' },
      body: JSON.stringify({ estimate }),
    });
    await res.arrayBuffer();
    return res.status;
  }
  async function reservations(result: string): Promise<number> {
    let n = 0;
    for (const d of instances)
      n += (await d.metrics.budgetReservations.get()).values.find((v) => v.labels.result === result)?.value ?? 0;
    return n;
  }
  async function recorded(workspaceId: string): Promise<number> {
    const rows = await db.query<{ s: number }>(
      'SELECT COALESCE(SUM(cost_usd), 0)::double precision AS s FROM generations WHERE workspace_id = $1',
      [workspaceId],
    );
    return Number(rows[0]?.s);
  }
  /**
   * Resolves once replica 0 holds a lease on `workspaceId`'s daily budget: its hold (a `lease:`
   * field) is in Redis. Read on replica 0's own connection, whose replies arrive in order, so the
   * reply granting the lease has been handled (the lease is in its book) before this one.
   */
  async function leaseHeld(workspaceId: string): Promise<void> {
    const redis = kv1.connection as Redis;
    await until('the lease hold in Redis', async () => {
      const [holds] = await redis.keys(`${kv1.prefix}budget:{${workspaceId}}:daily:*:holds`);
      return holds !== undefined && Object.keys(await redis.hgetall(holds)).some((f) => f.startsWith(LEASE_PREFIX));
    });
  }
  async function workspaceWithBudget(limitUsd: number): Promise<{ id: string; slug: string }> {
    const slug = `l${++seq}`;
    const res = await request(gw.app)
      .post('/api/v1/workspaces')
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ name: slug, slug })
      .expect(201);
    await request(gw.app)
      .put(`/api/v1/workspaces/${slug}/budgets/daily`)
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ limit_usd: limitUsd })
      .expect(200);
    return { id: res.body.data.id, slug };
  }

  test('with ample room, most requests are admitted on leases, not by a reserve script each', async () => {
    const ws = await workspaceWithBudget(1000);
    const key = await createInferenceKey(gw, { name: 'roomy', workspace_id: ws.slug });
    const before = { lease: await reservations('lease'), reserved: await reservations('reserved') };
    for (let i = 0; i < 40; i++) expect(await spend(i % 2, key.secret, 0.01)).toBe(200);
    const leased = (await reservations('lease')) - before.lease;
    const reserved = (await reservations('reserved')) - before.reserved;
    expect(leased + reserved).toBe(40);
    expect(leased).toBeGreaterThanOrEqual(20);
    expect(await recorded(ws.id)).toBeCloseTo(0.4, 9);
  });

  test('reserveNow admits from a live lease without a round trip, and defers to reserve when it cannot', async () => {
    const ws = await workspaceWithBudget(1000);
    const key = await createInferenceKey(gw, { name: 'now', workspace_id: ws.slug });
    const record = await instances[0]!.keyCache.get(hashSecret(key.secret));
    expect(record).not.toBeNull();
    // Budgets not loaded on this replica yet: nothing to decide without a round trip.
    expect(instances[0]!.spend.reserveNow?.(record!, 0.01)).toBeUndefined();
    expect(await spend(0, key.secret, 0.01)).toBe(200); // loads the budgets, reserves, opens a lease
    const before = await reservations('lease');
    await leaseHeld(ws.id); // until the lease's reserve script has landed
    const now = instances[0]!.spend.reserveNow?.(record!, 0.01);
    expect(now).toBeDefined();
    expect((await reservations('lease')) - before).toBe(1);
    await now!.settle(0.01);
    // A request larger than the lease's room is not admitted from it.
    expect(instances[0]!.spend.reserveNow?.(record!, 500)).toBeUndefined();
  });

  test('steady traffic on one replica renews its lease ahead: at most 3 of 40 requests reserve on their own (8 without renewal)', async () => {
    const ws = await workspaceWithBudget(1000);
    const key = await createInferenceKey(gw, { name: 'steady', workspace_id: ws.slug });
    const before = { lease: await reservations('lease'), reserved: await reservations('reserved') };
    for (let i = 0; i < 40; i++) expect(await spend(0, key.secret, 0.01)).toBe(200);
    const leased = (await reservations('lease')) - before.lease;
    const reserved = (await reservations('reserved')) - before.reserved;
    // Without renewal: one in every five (4-request leases). A renewal has one request's time to
    // land before its lease runs out; on a slow machine it may miss once or twice.
    expect(reserved).toBeLessThanOrEqual(3);
    expect(leased + reserved).toBe(40);
    expect(await recorded(ws.id)).toBeCloseTo(0.4, 9);
  });

  test('a renewal without 8 leases of room is given back: near a limit requests are decided one by one', async () => {
    // Leases of 4 × 0.01 need 8 × 0.04 = 0.32 of room. The first request leaves 0.34: it opens a
    // lease (room 0.30). Its renewal then finds 0.30 < 0.32 and gives its hold straight back.
    const ws = await workspaceWithBudget(0.35);
    const key = await createInferenceKey(gw, { name: 'tight', workspace_id: ws.slug });
    const before = { lease: await reservations('lease'), reserved: await reservations('reserved') };
    for (let i = 0; i < 10; i++) expect(await spend(0, key.secret, 0.01)).toBe(200);
    // The first, 4 on the lease, then 5 one by one: no second lease. (On a slow machine the
    // 200 ms lease can run out before its 4th request, which is then reserved on its own too.)
    const leased = (await reservations('lease')) - before.lease;
    expect(leased).toBeLessThanOrEqual(4);
    expect((await reservations('reserved')) - before.reserved).toBe(10 - leased);
    const statuses = await Promise.all(Array.from({ length: 40 }, () => spend(0, key.secret, 0.01)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(25); // no hold left behind by the refused renewal
    expect(await recorded(ws.id)).toBeCloseTo(0.35, 9);
  });

  test("a burst over both replicas gets exactly the budget's worth, leases or not", async () => {
    const n = 40;
    const ws = await workspaceWithBudget(n * 0.01);
    const key = await createInferenceKey(gw, { name: 'burst', workspace_id: ws.slug });
    const statuses = await Promise.all(Array.from({ length: 3 * n }, (_, i) => spend(i % 2, key.secret, 0.01)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(n);
    expect(statuses.filter((s) => s === 402)).toHaveLength(2 * n);
    expect(await recorded(ws.id)).toBeCloseTo(n * 0.01, 9);
  });

  test("a request kept out only by the other replica's unused lease waits for it and is admitted", async () => {
    const ws = await workspaceWithBudget(1);
    const key = await createInferenceKey(gw, { name: 'edge', workspace_id: ws.slug });
    const before = await reservations('lease');
    // Replica 0: 0.01 spent, and a lease of 0.04 opened behind it (room 0.99 >= 8 leases).
    expect(await spend(0, key.secret, 0.01)).toBe(200);
    await leaseHeld(ws.id);
    expect(await spend(0, key.secret, 0.01)).toBe(200);
    expect((await reservations('lease')) - before).toBe(1);
    // Replica 1: 0.9 fits beside the lease; then 0.07 fits only once the lease (0.03 unused) is settled.
    expect(await spend(1, key.secret, 0.9)).toBe(200);
    const started = Date.now();
    expect(await spend(1, key.secret, 0.07)).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(LEASE.leaseMs / 2);
    // Nothing more fits: 0.99 spent.
    expect(await spend(1, key.secret, 0.02)).toBe(402);
    expect(await recorded(ws.id)).toBeCloseTo(0.99, 9);
  });

  /** Open a lease on replica 0 (one request reserved in Redis, one admitted on the lease): 0.02 spent or held. */
  async function leaseOnFirst(secret: string, workspaceId: string): Promise<void> {
    const before = await reservations('lease');
    expect(await spend(0, secret, 0.01)).toBe(200);
    await leaseHeld(workspaceId);
    expect(await spend(0, secret, 0.01)).toBe(200);
    expect((await reservations('lease')) - before).toBe(1);
  }

  test('a lowered budget is enforced at once: the open lease, granted under the old limit, admits nothing more', async () => {
    const ws = await workspaceWithBudget(1);
    const key = await createInferenceKey(gw, { name: 'lowered', workspace_id: ws.slug });
    await leaseOnFirst(key.secret, ws.id);
    await request(gw.app)
      .put(`/api/v1/workspaces/${ws.slug}/budgets/daily`)
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ limit_usd: 0.025 })
      .expect(200);
    // 0.02 spent; 0.01 more would pass 0.025 (the old lease still had 0.03 unused).
    expect(await spend(0, key.secret, 0.01)).toBe(402);
    expect(await spend(0, key.secret, 0.005)).toBe(200);
    expect(await recorded(ws.id)).toBeCloseTo(0.025, 9);
  });

  test('shutdown settles open leases: their spend is in the counters and their holds are gone', async () => {
    const ws = await workspaceWithBudget(1);
    const key = await createInferenceKey(gw, { name: 'shutdown', workspace_id: ws.slug });
    await leaseOnFirst(key.secret, ws.id);
    await instances[0]?.spend.close?.();
    const redis = kv1.connection as Redis;
    const [holds] = await redis.keys(`${kv1.prefix}budget:{${ws.id}}:daily:*:holds`);
    const [spent] = await redis.keys(`${kv1.prefix}budget:{${ws.id}}:daily:*:spent`);
    const fields = Object.keys(await redis.hgetall(holds as string));
    expect(fields.filter((f) => f.startsWith('lease:'))).toEqual([]);
    expect(await redis.get(spent as string)).toBe(String(20_000_000));
  });

  test("a client's request id never makes its hold pass for a lease", async () => {
    const ws = await workspaceWithBudget(1);
    const key = await createInferenceKey(gw, { name: 'spoof', workspace_id: ws.slug });
    const record = await gw.deps.keyCache.get(key.hash);
    const reservation = await gw.deps.spend.reserve(record as NonNullable<typeof record>, 0.01, 'lease:spoofed');
    const [holds] = await (kv1.connection as Redis).keys(`${kv1.prefix}budget:{${ws.id}}:daily:*:holds`);
    const fields = Object.keys(await (kv1.connection as Redis).hgetall(holds as string)).filter(
      (f) => !f.startsWith('#'),
    );
    // The request's hold, plus the lease it may have opened (ids of our own making).
    expect(fields.filter((f) => f.includes('spoofed'))).toEqual([expect.stringMatching(/^r:lease:spoofed:/)]);
    expect(fields.filter((f) => f.startsWith('lease:') && f.includes('spoofed'))).toEqual([]);
    await reservation.release();
  });
});
