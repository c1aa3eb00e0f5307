/**
 * Issue 37 (the Workspaces page's bars): a budget read says where it stands now: the spend recorded
 * in its current period, what open requests hold against it, when the period began and when it
 * resets (lifetime: never); and the workspace list includes every workspace's budgets and first
 * members when asked, so a page of all workspaces' bars is one call. On the in-process store and on Redis.
 */
import request from 'supertest';
import { KVS } from '../helpers/services';
import { bearer } from '../helpers/gateway';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { hashSecret } from '../../src/keys/secrets';

/** $0.02 per million tokens (config/models.yaml), 1,000 token ids per request. */
const COST = (1000 * 0.02) / 1e6;
const tokenInput = () => Array.from({ length: 1000 }, (_, i) => i % 50000);

describe.each(KVS)('budget status on $name', (kvKind) => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ kv: await kvKind.open(), overrides: { budgets: { leaseRequests: 0 } } });
  });
  afterAll(async () => {
    await h.close();
  });
  const mgmt = () => bearer(h.gw.mgmtKey);
  const budgets = async () =>
    (
      await request(h.gw.app)
        .get(`/api/v1/workspaces/${h.gw.defaultWorkspaceId}/budgets`)
        .set('Authorization', mgmt())
        .expect(200)
    ).body.data as Array<Record<string, unknown>>;

  test('spent, reserved, period start and reset time beside each budget', async () => {
    for (const [interval, limit] of [
      ['monthly', 1],
      ['lifetime', 5],
    ] as const) {
      await request(h.gw.app)
        .put(`/api/v1/workspaces/${h.gw.defaultWorkspaceId}/budgets/${interval}`)
        .set('Authorization', mgmt())
        .send({ limit_usd: limit })
        .expect(200);
    }
    const fresh = await budgets();
    expect(fresh.find((b) => b.reset_interval === 'monthly')).toMatchObject({
      spent_usd: 0,
      reserved_usd: 0,
      period_start: '2026-11-01T00:00:00.000Z',
      resets_at: '2026-12-01T00:00:00.000Z',
    });
    expect(fresh.find((b) => b.reset_interval === 'lifetime')).toMatchObject({
      spent_usd: 0,
      period_start: null,
      resets_at: null,
    });

    for (let i = 0; i < 3; i++)
      expect((await h.post({ model: 'openai/text-embedding-3-small', input: tokenInput() })).status).toBe(200);
    await h.gw.deps.recorder.flush();
    const key = await h.gw.deps.keyCache.get(hashSecret(h.key));
    const held = await h.gw.deps.spend.reserve(key!, 0.25, 'req-held');
    const during = await budgets();
    for (const b of during) {
      expect(b.spent_usd).toBeCloseTo(3 * COST, 12);
      expect(b.reserved_usd).toBeCloseTo(0.25, 9);
    }
    await held.release();
    expect((await budgets()).map((b) => b.reserved_usd)).toEqual([0, 0]);

    const one = await request(h.gw.app)
      .get(`/api/v1/workspaces/${h.gw.defaultWorkspaceId}/budgets/monthly`)
      .set('Authorization', mgmt())
      .expect(200);
    expect(one.body.data).toMatchObject({
      limit_usd: 1,
      reset_interval: 'monthly',
      resets_at: '2026-12-01T00:00:00.000Z',
    });
    expect(one.body.data.spent_usd).toBeCloseTo(3 * COST, 12);
  });

  test('GET /workspaces?include=budgets,members: each workspace with its budgets (and standing) and first members', async () => {
    const other = await request(h.gw.app)
      .post('/api/v1/workspaces')
      .set('Authorization', mgmt())
      .send({ name: 'Empty', slug: 'empty' })
      .expect(201);
    const res = await request(h.gw.app)
      .get('/api/v1/workspaces?include=budgets,members')
      .set('Authorization', mgmt())
      .expect(200);
    type Listed = {
      id: string;
      budgets: Array<Record<string, unknown>>;
      members: { data: unknown[]; total_count: number };
    };
    const byId = new Map((res.body.data as Listed[]).map((w) => [w.id, w]));
    const def = byId.get(h.gw.defaultWorkspaceId) as {
      budgets: Array<Record<string, unknown>>;
      members: { data: unknown[]; total_count: number };
    };
    expect(def.budgets.map((b) => b.reset_interval).sort()).toEqual(['lifetime', 'monthly']);
    expect(def.budgets.find((b) => b.reset_interval === 'monthly')).toMatchObject({
      limit_usd: 1,
      reserved_usd: 0,
      resets_at: '2026-12-01T00:00:00.000Z',
    });
    expect(def.members.total_count).toBe(def.members.data.length);
    expect(byId.get(other.body.data.id)).toMatchObject({
      slug: 'empty',
      budgets: [],
      members: { data: [], total_count: 0 },
    });
    const budgetsOnly = await request(h.gw.app)
      .get('/api/v1/workspaces?include=budgets')
      .set('Authorization', mgmt())
      .expect(200);
    expect(budgetsOnly.body.data[0].members).toBeUndefined();
    const plain = await request(h.gw.app).get('/api/v1/workspaces').set('Authorization', mgmt()).expect(200);
    expect(plain.body.data[0].budgets).toBeUndefined();
    for (const bad of ['keys', 'budgets,budgets,members', 'budgets;members', '']) {
      const r = await request(h.gw.app)
        .get(`/api/v1/workspaces?include=${encodeURIComponent(bad)}`)
        .set('Authorization', mgmt());
      expect([bad, r.status]).toEqual([bad, 400]);
    }
  });
});
