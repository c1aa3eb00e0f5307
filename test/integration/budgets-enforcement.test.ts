/**
 * Spend enforcement through HTTP (a test-only route calling `deps.spend`, see budgets-helpers),
 * against the in-process twin and real Redis alike, with a controllable clock: 402 bodies that
 * name the limit, UTC day / ISO week / month / lifetime periods, key limits and the Key usage
 * fields, reservation expiry and release, counter rebuild after Redis loses them, budget
 * changes taking effect at once, and fail-closed behaviour when Redis is unreachable.
 */
import request from 'supertest';
import type { Express } from 'express';
import { KVS, deleteRedisPrefix, openTestPglite } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import { recordSpend, spendApp } from './budgets-helpers';
import { until } from '../helpers/eventually';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';
import { MemoryKv } from '../../src/kv/memory';
import { RedisKv } from '../../src/kv/redis';
import { listBudgets } from '../../src/budgets/repository';
import { BudgetGuard } from '../../src/budgets/guard';
import { PaymentRequiredError, ServiceUnavailableError } from '../../src/errors';
import { Metrics } from '../../src/observability/metrics';
import { createLogger } from '../../src/observability/logger';
import type { ApiKeyRecord } from '../../src/keys/types';

const WED = Date.parse('2026-11-18T12:00:00Z');

describe.each(KVS)('budget enforcement with the $name store', (kvKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let app: Express;
  let now = WED;
  let seq = 0;

  beforeAll(async () => {
    db = await openTestPglite();
    kv = await kvKind.open();
    gw = await createTestGateway(db, kv, {}, () => now);
    app = spendApp(gw.deps);
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });
  beforeEach(() => {
    now = WED;
  });

  const mgmt = () => bearer(gw.mgmtKey);
  async function workspace(budgets: Record<string, number> = {}): Promise<string> {
    const slug = `e${++seq}`;
    await request(app).post('/api/v1/workspaces').set('Authorization', mgmt()).send({ name: slug, slug }).expect(201);
    for (const [interval, limit] of Object.entries(budgets)) {
      await request(app)
        .put(`/api/v1/workspaces/${slug}/budgets/${interval}`)
        .set('Authorization', mgmt())
        .send({ limit_usd: limit })
        .expect(200);
    }
    return slug;
  }
  const spend = (secret: string, estimate = 0.01, extra: Record<string, unknown> = {}) =>
    request(app)
      .post('/test/spend')
      .set('Authorization', bearer(secret))
      .send({ estimate, ...extra });
  async function flushCounters(): Promise<void> {
    if (kv instanceof MemoryKv) kv.data.flush();
    else await deleteRedisPrefix(kv.prefix);
  }

  test('a workspace budget admits requests up to its limit, then 402 naming the budget, interval and reset', async () => {
    const slug = await workspace({ daily: 0.03 });
    const { secret } = await createInferenceKey(gw, { name: 'k', workspace_id: slug });
    for (let i = 0; i < 3; i++) await spend(secret).expect(200);
    const res = await spend(secret);
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe(402);
    expect(res.body.error.message).toBe(
      `Insufficient credits: the workspace's daily budget is used up. Raise it with PUT /api/v1/workspaces/${res.body.error.metadata.manage.split('/')[4]}/budgets/daily or wait for its reset at 2026-11-19T00:00:00.000Z.`,
    );
    expect(res.body.error.metadata).toEqual({
      limit_source: 'workspace_budget',
      interval: 'daily',
      limit_usd: 0.03,
      spend_usd: 0.03,
      remaining_usd: 0,
      reserved_usd: 0.01,
      resets_at: '2026-11-19T00:00:00.000Z',
      manage: expect.stringMatching(/^PUT \/api\/v1\/workspaces\/[0-9a-f-]{36}\/budgets\/daily$/),
    });
  });

  test('a request whose estimate does not fit is refused even though the budget is not yet used up', async () => {
    const slug = await workspace({ lifetime: 1 });
    const { secret } = await createInferenceKey(gw, { name: 'k', workspace_id: slug });
    await spend(secret, 0.6).expect(200);
    const res = await spend(secret, 0.5).expect(402);
    expect(res.body.error.metadata).toMatchObject({
      limit_source: 'workspace_budget',
      interval: 'lifetime',
      spend_usd: 0.6,
      remaining_usd: 0.4,
      reserved_usd: 0.5,
      resets_at: null,
    });
    // Not "used up" (issue 61 item 8): what this request reserves, and the room the budget has left.
    expect(res.body.error.message).toBe(
      `Insufficient credits: this request reserves up to $0.50 (its worst case; nothing is spent yet), more than the $0.40 left of the workspace's lifetime budget of $1.00 ($0.60 spent or held). Raise it with ${res.body.error.metadata.manage} (it never resets).`,
    );
    await spend(secret, 0.4).expect(200);
    await spend(secret, 0.000001).expect(402);
  });

  test('a worst case larger than the whole limit, with nothing spent, says so with the amounts, not "used up"', async () => {
    const slug = await workspace({ daily: 0.0125 });
    const { secret } = await createInferenceKey(gw, { name: 'k', workspace_id: slug });
    const res = await spend(secret, 0.013608).expect(402);
    expect(res.body.error.message).toMatch(
      /^Insufficient credits: this request reserves up to \$0\.01361 \(its worst case; nothing is spent yet\), more than the \$0\.0125 left of the workspace's daily budget of \$0\.0125 \(\$0\.00 spent or held\)\. Raise it with PUT /,
    );
    expect(res.body.error.message).not.toContain('used up');
    expect(res.body.error.metadata).toMatchObject({
      spend_usd: 0,
      remaining_usd: 0.0125,
      reserved_usd: 0.013608,
      limit_usd: 0.0125,
    });
  });

  test('settling replaces the estimate with the real cost', async () => {
    const slug = await workspace({ daily: 1 });
    const { secret } = await createInferenceKey(gw, { name: 'k', workspace_id: slug });
    await spend(secret, 0.9, { actual: 0.1 }).expect(200);
    await spend(secret, 0.9, { actual: 0.1 }).expect(200);
    const res = await spend(secret, 0.9).expect(402);
    expect(res.body.error.metadata.spend_usd).toBe(0.2);
  });

  test('daily resets at UTC midnight while weekly keeps counting; ISO week resets Monday 00:00 UTC', async () => {
    const slug = await workspace({ daily: 0.02, weekly: 0.03 });
    const { secret } = await createInferenceKey(gw, { name: 'k', workspace_id: slug });
    await spend(secret).expect(200);
    await spend(secret).expect(200);
    expect((await spend(secret).expect(402)).body.error.metadata.interval).toBe('daily');
    now = Date.parse('2026-11-19T00:00:00Z'); // Thursday: a new day, the same week
    await spend(secret).expect(200);
    const weekly = await spend(secret).expect(402);
    expect(weekly.body.error.metadata).toMatchObject({
      interval: 'weekly',
      spend_usd: 0.03,
      resets_at: '2026-11-23T00:00:00.000Z',
    });
    expect(weekly.body.error.message).toMatch(/^Insufficient credits: the workspace's weekly budget is used up/);
    now = Date.parse('2026-11-22T23:59:59.999Z'); // Sunday: still the same ISO week
    await spend(secret).expect(402);
    now = Date.parse('2026-11-23T00:00:00Z'); // Monday: a new week
    await spend(secret).expect(200);
  });

  test('a new month resets monthly, but lifetime keeps counting and never resets', async () => {
    const slug = await workspace({ monthly: 0.03, lifetime: 0.04 });
    const { secret } = await createInferenceKey(gw, { name: 'k', workspace_id: slug });
    now = Date.parse('2026-11-30T23:00:00Z');
    for (let i = 0; i < 3; i++) await spend(secret).expect(200);
    const monthly = await spend(secret).expect(402);
    expect(monthly.body.error.metadata).toMatchObject({ interval: 'monthly', resets_at: '2026-12-01T00:00:00.000Z' });
    now = Date.parse('2026-12-01T00:00:00Z');
    await spend(secret).expect(200);
    const lifetime = await spend(secret).expect(402);
    expect(lifetime.body.error.metadata).toMatchObject({
      limit_source: 'workspace_budget',
      interval: 'lifetime',
      limit_usd: 0.04,
      spend_usd: 0.04,
      resets_at: null,
    });
    expect(lifetime.body.error.message).toMatch(/\(it never resets\)\.$/);
    now = Date.parse('2027-06-01T00:00:00Z');
    await spend(secret).expect(402);
  });

  test('a key limit is enforced per limit_reset period and the Key usage fields show real spend', async () => {
    const slug = await workspace();
    const { secret, hash } = await createInferenceKey(gw, {
      name: 'capped',
      workspace_id: slug,
      limit: 0.05,
      limit_reset: 'daily',
    });
    const { secret: sibling } = await createInferenceKey(gw, { name: 'sibling', workspace_id: slug });
    for (let i = 0; i < 5; i++) await spend(secret).expect(200);
    const res = await spend(secret).expect(402);
    expect(res.body.error.message).toMatch(
      /^Insufficient credits: this API key's daily spending limit is used up\. Raise it with PATCH \/api\/v1\/keys\/\{hash\}/,
    );
    expect(res.body.error.metadata).toEqual({
      limit_source: 'key_limit',
      interval: 'daily',
      limit_usd: 0.05,
      spend_usd: 0.05,
      remaining_usd: 0,
      reserved_usd: 0.01,
      resets_at: '2026-11-19T00:00:00.000Z',
      manage: 'PATCH /api/v1/keys/{hash}',
    });
    await spend(sibling).expect(200); // the limit is the key's own, not the workspace's
    const key = (await request(app).get(`/api/v1/keys/${hash}`).set('Authorization', mgmt()).expect(200)).body.data;
    expect(key).toMatchObject({
      usage: 0.05,
      usage_daily: 0.05,
      usage_weekly: 0.05,
      usage_monthly: 0.05,
      limit_remaining: 0,
    });
    now = Date.parse('2026-11-19T08:00:00Z');
    await spend(secret, 0.02).expect(200);
    const next = (await request(app).get(`/api/v1/keys/${hash}`).set('Authorization', mgmt()).expect(200)).body.data;
    expect(next).toMatchObject({
      usage: 0.07,
      usage_daily: 0.02,
      usage_weekly: 0.07,
      usage_monthly: 0.07,
      limit_remaining: 0.03,
    });
    const own = (await request(app).get('/api/v1/key').set('Authorization', bearer(secret)).expect(200)).body.data;
    expect(own).toMatchObject({ usage: 0.07, usage_daily: 0.02, limit_remaining: 0.03 });
  });

  test('a lifetime key limit (limit_reset null) and limit changes take effect at once', async () => {
    const slug = await workspace();
    const { secret, hash } = await createInferenceKey(gw, { name: 'life', workspace_id: slug, limit: 0.02 });
    await spend(secret).expect(200);
    await spend(secret).expect(200);
    expect((await spend(secret).expect(402)).body.error.metadata).toMatchObject({
      limit_source: 'key_limit',
      interval: 'lifetime',
      resets_at: null,
    });
    await request(app).patch(`/api/v1/keys/${hash}`).set('Authorization', mgmt()).send({ limit: 0.03 }).expect(200);
    await spend(secret).expect(200);
    await spend(secret).expect(402);
    await request(app).patch(`/api/v1/keys/${hash}`).set('Authorization', mgmt()).send({ limit: null }).expect(200);
    await spend(secret).expect(200);
  });

  test('raising or deleting a workspace budget takes effect on the next request', async () => {
    const slug = await workspace({ daily: 0.01 });
    const { secret } = await createInferenceKey(gw, { name: 'k', workspace_id: slug });
    await spend(secret).expect(200);
    await spend(secret).expect(402);
    await request(app)
      .put(`/api/v1/workspaces/${slug}/budgets/daily`)
      .set('Authorization', mgmt())
      .send({ limit_usd: 0.02 })
      .expect(200);
    await spend(secret).expect(200);
    await spend(secret).expect(402);
    await request(app).delete(`/api/v1/workspaces/${slug}/budgets/daily`).set('Authorization', mgmt()).expect(200);
    await spend(secret).expect(200);
  });

  test('a released reservation gives its budget back; an unsettled one expires after the reservation TTL', async () => {
    const slug = await workspace({ daily: 0.02 });
    const { hash } = await createInferenceKey(gw, { name: 'k', workspace_id: slug });
    const key = (await gw.deps.keyCache.get(hash)) as ApiKeyRecord;
    const a = await gw.deps.spend.reserve(key, 0.01, 'a');
    await a.release();
    const crashed1 = await gw.deps.spend.reserve(key, 0.01, 'crash-1');
    const crashed2 = await gw.deps.spend.reserve(key, 0.01, 'crash-2');
    void crashed1;
    void crashed2; // never settled: the requests "crashed"
    await expect(gw.deps.spend.reserve(key, 0.01, 'blocked')).rejects.toBeInstanceOf(PaymentRequiredError);
    now += gw.deps.config.budgets.reservationTtlMs - 1;
    await expect(gw.deps.spend.reserve(key, 0.01, 'still-blocked')).rejects.toBeInstanceOf(PaymentRequiredError);
    now += 1;
    const fresh = await gw.deps.spend.reserve(key, 0.01, 'after-expiry');
    await fresh.settle(0.01);
    // A late settle of an expired reservation still counts its real cost (it was spent).
    await crashed1.settle(0.01);
    await expect(gw.deps.spend.reserve(key, 0.000001, 'full')).rejects.toBeInstanceOf(PaymentRequiredError);
  });

  test('a hold lives as long as its request: renewed past the TTL while it runs, no longer once settled (issue 61 item 4)', async () => {
    const slug = await workspace({ daily: 0.01 });
    const { hash } = await createInferenceKey(gw, { name: 'k', workspace_id: slug });
    const key = (await gw.deps.keyCache.get(hash)) as ApiKeyRecord;
    const { renewals } = gw.deps.spend as BudgetGuard;
    const ttl = gw.deps.config.budgets.reservationTtlMs;
    const tracked = renewals.size;
    const long = await gw.deps.spend.reserve(key, 0.01, 'long-stream');
    expect(renewals.size).toBe(tracked + 1);
    for (let i = 0; i < 3; i++) {
      now += ttl / 2; // the replica's renewal timer, on the test's clock
      await renewals.renewDue();
    }
    // 1.5 TTLs in: the stream still runs, so its budget is still held and a racing request is refused.
    await expect(gw.deps.spend.reserve(key, 0.01, 'racer')).rejects.toBeInstanceOf(PaymentRequiredError);
    await long.settle(0.004);
    expect(renewals.size).toBe(tracked);
    await expect(gw.deps.spend.reserve(key, 0.007, 'over')).rejects.toBeInstanceOf(PaymentRequiredError);
    await (await gw.deps.spend.reserve(key, 0.006, 'fits')).release();
  });

  test('counters lost from the store are rebuilt from the usage table, once, with no overspend', async () => {
    const slug = await workspace({ daily: 0.05, monthly: 0.08 });
    const { secret } = await createInferenceKey(gw, {
      name: 'k',
      workspace_id: slug,
      limit: 0.07,
      limit_reset: 'monthly',
    });
    await spend(secret).expect(200);
    await spend(secret).expect(200);
    now = Date.parse('2026-11-17T09:00:00Z'); // the day before: counts for the month, not for the 18th
    await spend(secret).expect(200);
    now = WED;
    await flushCounters();
    const rebuildsBefore = (await gw.deps.metrics.budgetCounterRebuilds.get()).values[0]?.value ?? 0;
    await spend(secret).expect(200);
    await spend(secret).expect(200);
    await spend(secret).expect(200);
    const res = await spend(secret).expect(402);
    expect(res.body.error.metadata).toMatchObject({ interval: 'daily', spend_usd: 0.05 });
    const rebuilt = ((await gw.deps.metrics.budgetCounterRebuilds.get()).values[0]?.value ?? 0) - rebuildsBefore;
    expect(rebuilt).toBe(3); // daily, monthly and the key's monthly limit: each exactly once
    now = Date.parse('2026-11-19T09:00:00Z');
    await spend(secret).expect(200); // month total 0.07 = key limit
    const key = await spend(secret).expect(402);
    expect(key.body.error.metadata).toMatchObject({ limit_source: 'key_limit', interval: 'monthly', spend_usd: 0.07 });
  });

  test('spend settled while the counters are lost, its record still on its way, is not missed by their rebuild (issue 61 item 6)', async () => {
    const slug = await workspace({ daily: 0.05 });
    const { secret, hash } = await createInferenceKey(gw, { name: 'k', workspace_id: slug });
    const key = (await gw.deps.keyCache.get(hash)) as ApiKeyRecord;
    await spend(secret).expect(200);
    await spend(secret).expect(200); // 0.02 spent and recorded
    const late = await gw.deps.spend.reserve(key, 0.01, 'late');
    await flushCounters(); // Redis loses the counters while `late` is in flight
    await late.settle(0.01); // no counter to add to; its record has not reached the table yet
    await spend(secret).expect(200); // rebuilds from the table (0.02), then spends 0.01
    await recordSpend(db, key, 0.01, now); // `late`'s record arrives
    // Recorded: 0.04. A counter that missed `late` (0.03) would admit 0.011 more; 0.05 is the limit.
    await expect(gw.deps.spend.reserve(key, 0.011, 'probe')).rejects.toBeInstanceOf(PaymentRequiredError);
    await (await gw.deps.spend.reserve(key, 0.009, 'fits')).release();
  });

  test('Redis wiped under load: the rebuilt counter is at least the sum of the records (issue 61 item 6)', async () => {
    const slug = await workspace({ daily: 1 });
    const { secret, hash } = await createInferenceKey(gw, { name: 'k', workspace_id: slug });
    const key = (await gw.deps.keyCache.get(hash)) as ApiKeyRecord;
    let answered = 0;
    const wave = (n: number) =>
      Array.from({ length: n }, () =>
        spend(secret, 0.01, { recordLate: true })
          .expect(200)
          .then(() => answered++),
      );
    const first = wave(30);
    await until('the first answers', () => answered >= 3, { everyMs: 1 });
    await flushCounters(); // the rest of the first wave is in flight: settles to lost counters, records on their way
    await Promise.all([...first, ...wave(10)]);
    const rows = await db.query<{ usd: number }>(
      'SELECT COALESCE(SUM(cost_usd), 0)::float8 AS usd FROM generations WHERE key_hash = $1',
      [hash],
    );
    const recorded = Number(rows[0]?.usd);
    expect(recorded).toBeCloseTo(0.4, 9);
    expect(answered).toBe(40);
    // A counter below the records would admit this; one at or above them refuses it.
    await expect(gw.deps.spend.reserve(key, 1 - recorded + 0.001, 'probe')).rejects.toBeInstanceOf(
      PaymentRequiredError,
    );
  });

  test('keys without any limit in a workspace without budgets are never refused', async () => {
    const slug = await workspace();
    const { secret } = await createInferenceKey(gw, { name: 'free', workspace_id: slug });
    for (let i = 0; i < 3; i++) await spend(secret, 1000).expect(200);
  });
});

describe('budget enforcement when Redis is unreachable', () => {
  let db: Database;
  let dead: RedisKv;
  let gw: TestGateway;

  beforeAll(async () => {
    db = await openTestPglite();
    gw = await createTestGateway(db, new MemoryKv());
    dead = await RedisKv.connect({ url: 'redis://127.0.0.1:1', prefix: 'dead:', commandTimeoutMs: 200 });
  });
  afterAll(async () => {
    await dead.close();
    await db.close();
  });

  function guard() {
    return new BudgetGuard({
      db,
      budgetsOf: (ws) => listBudgets(db, ws),
      kv: dead,
      metrics: new Metrics(),
      logger: createLogger('silent'),
      clock: Date.now,
      reservationTtlMs: 60000,
    });
  }

  test('a request with a limit fails closed with 503', async () => {
    const { hash } = await createInferenceKey(gw, { name: 'limited', limit: 1 });
    const key = (await gw.deps.keyCache.get(hash)) as ApiKeyRecord;
    const err = await guard()
      .reserve(key, 0.01, 'r')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect((err as ServiceUnavailableError).status).toBe(503);
    expect((err as ServiceUnavailableError).metadata).toEqual({ reason: 'budget_store_unavailable' });
  });

  test('a request with no limit at all does not need Redis', async () => {
    const { hash } = await createInferenceKey(gw, { name: 'unlimited' });
    const key = (await gw.deps.keyCache.get(hash)) as ApiKeyRecord;
    const r = await guard().reserve(key, 0.01, 'r');
    await expect(r.settle(0.01)).resolves.toBeUndefined();
  });
});
