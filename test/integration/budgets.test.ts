/**
 * Workspace budgets through HTTP on every database kind: PUT creates and updates (200 both
 * times, created_at kept, updated_at moved), `reset_interval` echoes the interval (including
 * `lifetime`), GET one / list / idempotent DELETE, the strict ordering rule, validation,
 * the workspace-wide BYOK flag, slug addressing and tenant isolation.
 */
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, openTestGateway, type TestGateway } from '../helpers/gateway';
import type { Database } from '../../src/store/db';
import { expectSchema } from '../helpers/expect-schema';
import type { Kv } from '../../src/kv/kv';
import { until } from '../helpers/eventually';

describe.each(DATABASES)('workspace budgets on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let other: TestGateway;
  let slugSeq = 0;

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind));
    other = await createTestGateway(db, kv);
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  const auth = (g: TestGateway) => bearer(g.mgmtKey);
  const put = (path: string, body: unknown, g = gw) =>
    request(g.app)
      .put(`/api/v1${path}`)
      .set('Authorization', auth(g))
      .send(body as object);
  const get = (path: string, g = gw) => request(g.app).get(`/api/v1${path}`).set('Authorization', auth(g));
  const del = (path: string, g = gw) => request(g.app).delete(`/api/v1${path}`).set('Authorization', auth(g));
  async function untilDatabaseClockPasses(iso: string): Promise<void> {
    const after = Date.parse(iso);
    await until(`the database clock past ${iso}`, async () => {
      const [row] = await db.query<{ now: Date | string }>('SELECT clock_timestamp() AS now');
      return new Date(row!.now).getTime() > after;
    });
  }
  async function newWorkspace(g = gw): Promise<{ id: string; slug: string }> {
    const slug = `b${++slugSeq}`;
    const res = await request(g.app)
      .post('/api/v1/workspaces')
      .set('Authorization', auth(g))
      .send({ name: slug, slug });
    return { id: res.body.data.id, slug };
  }

  test('PUT creates (200), then updates (200) keeping id and created_at and moving updated_at', async () => {
    const ws = await newWorkspace();
    const created = await put(`/workspaces/${ws.id}/budgets/monthly`, { limit_usd: 100 });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(['data', 'include_byok_in_budgets']);
    expect(Object.keys(created.body.data).sort()).toEqual([
      'created_at',
      'id',
      'limit_usd',
      'reset_interval',
      'updated_at',
      'workspace_id',
    ]);
    expect(created.body.data).toMatchObject({ workspace_id: ws.id, limit_usd: 100, reset_interval: 'monthly' });
    expect(created.body.include_byok_in_budgets).toBe(false);
    // The database stamps updated_at (clock_timestamp()) and the answer shows milliseconds: the
    // update goes once the database's clock has passed the creation's millisecond.
    await untilDatabaseClockPasses(created.body.data.updated_at);
    const updated = await put(`/workspaces/${ws.slug}/budgets/monthly`, { limit_usd: 250.5 });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      id: created.body.data.id,
      limit_usd: 250.5,
      created_at: created.body.data.created_at,
    });
    expect(Date.parse(updated.body.data.updated_at)).toBeGreaterThan(Date.parse(created.body.data.updated_at));
  });

  test('reset_interval echoes every interval, lifetime as the string "lifetime"', async () => {
    const ws = await newWorkspace();
    const limits = { daily: 1, weekly: 2, monthly: 3, lifetime: 4 } as const;
    for (const [interval, limit] of Object.entries(limits)) {
      const res = await put(`/workspaces/${ws.slug}/budgets/${interval}`, { limit_usd: limit }).expect(200);
      expectSchema(res.body, 'budgets.upsert.response');
      expect(res.body.data.reset_interval).toBe(interval);
    }
    const list = await get(`/workspaces/${ws.slug}/budgets`).expect(200);
    expect(
      list.body.data.map((b: { reset_interval: string; limit_usd: number }) => [b.reset_interval, b.limit_usd]),
    ).toEqual([
      ['daily', 1],
      ['weekly', 2],
      ['monthly', 3],
      ['lifetime', 4],
    ]);
    expect(list.body.include_byok_in_budgets).toBe(false);
    expectSchema(list.body, 'budgets.list.response');
    const one = await get(`/workspaces/${ws.id}/budgets/lifetime`).expect(200);
    expectSchema(one.body, 'budgets.get.response');
    expect(one.body.data).toEqual(list.body.data[3]);
  });

  test('limit_usd must be a number > 0; the interval must be one of the four → 400', async () => {
    const ws = await newWorkspace();
    for (const body of [
      { limit_usd: 0 },
      { limit_usd: -1 },
      { limit_usd: '5' },
      {},
      { limit_usd: 5, extra: 1 },
      { limit_usd: null },
    ]) {
      const res = await put(`/workspaces/${ws.slug}/budgets/daily`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(400);
    }
    for (const interval of ['yearly', 'DAILY', 'hourly']) {
      await put(`/workspaces/${ws.slug}/budgets/${interval}`, { limit_usd: 5 }).expect(400);
      await get(`/workspaces/${ws.slug}/budgets/${interval}`).expect(400);
      await del(`/workspaces/${ws.slug}/budgets/${interval}`).expect(400);
    }
    await put(`/workspaces/${ws.slug}/budgets/daily`, { limit_usd: 0.000001 }).expect(200);
  });

  test('limit_usd below 1 nano-USD (it would round to 0 in the spend counters) → 400, nothing stored', async () => {
    const ws = await newWorkspace();
    for (const limit of [1e-300, 5e-324, 1e-10, 9.99e-10]) {
      const res = await put(`/workspaces/${ws.slug}/budgets/daily`, { limit_usd: limit });
      expect(res.status).toBe(400);
      expect(res.body.error.metadata.errors).toEqual([{ path: 'body.limit_usd', message: expect.any(String) }]);
      await get(`/workspaces/${ws.slug}/budgets/daily`).expect(404);
    }
    const smallest = await put(`/workspaces/${ws.slug}/budgets/daily`, { limit_usd: 1e-9 }).expect(200);
    expect(smallest.body.data.limit_usd).toBe(1e-9);
    await put(`/workspaces/${ws.slug}/budgets/daily`, { limit_usd: 1e-12 }).expect(400);
    expect((await get(`/workspaces/${ws.slug}/budgets/daily`).expect(200)).body.data.limit_usd).toBe(1e-9);
  });

  test('ordering lifetime > monthly > weekly > daily is strict → 400 naming the conflicting budget', async () => {
    const ws = await newWorkspace();
    await put(`/workspaces/${ws.slug}/budgets/weekly`, { limit_usd: 50 }).expect(200);
    const daily = await put(`/workspaces/${ws.slug}/budgets/daily`, { limit_usd: 50 });
    expect(daily.status).toBe(400);
    expect(daily.body.error.message).toBe('Invalid request parameters');
    expect(daily.body.error.metadata.detail).toMatch(
      /daily budget \(50 USD\) must be lower than the weekly budget \(50 USD\)/,
    );
    const monthly = await put(`/workspaces/${ws.slug}/budgets/monthly`, { limit_usd: 40 });
    expect(monthly.status).toBe(400);
    expect(monthly.body.error.metadata.detail).toMatch(
      /monthly budget \(40 USD\) must be higher than the weekly budget/,
    );
    await put(`/workspaces/${ws.slug}/budgets/lifetime`, { limit_usd: 1000 }).expect(200);
    const lowered = await put(`/workspaces/${ws.slug}/budgets/lifetime`, { limit_usd: 10 });
    expect(lowered.status).toBe(400);
    expect(lowered.body.error.metadata.detail).toContain('weekly budget');
    // The refused change left the stored value alone.
    expect((await get(`/workspaces/${ws.slug}/budgets/lifetime`).expect(200)).body.data.limit_usd).toBe(1000);
    await put(`/workspaces/${ws.slug}/budgets/daily`, { limit_usd: 49.99 }).expect(200);
    await put(`/workspaces/${ws.slug}/budgets/monthly`, { limit_usd: 999 }).expect(200);
  });

  test('GET one of a missing budget → 404; DELETE is idempotent {deleted:true}', async () => {
    const ws = await newWorkspace();
    await get(`/workspaces/${ws.slug}/budgets/daily`).expect(404);
    await put(`/workspaces/${ws.slug}/budgets/daily`, { limit_usd: 3 }).expect(200);
    const first = await del(`/workspaces/${ws.id}/budgets/daily`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ deleted: true });
    const second = await del(`/workspaces/${ws.id}/budgets/daily`).expect(200);
    expect(second.body).toEqual({ deleted: true });
    await get(`/workspaces/${ws.slug}/budgets/daily`).expect(404);
    expect((await get(`/workspaces/${ws.slug}/budgets`).expect(200)).body.data).toEqual([]);
  });

  test('include_byok_in_budgets is workspace-wide: set on one PUT, reported everywhere, kept when omitted', async () => {
    const ws = await newWorkspace();
    const res = await put(`/workspaces/${ws.slug}/budgets/daily`, {
      limit_usd: 1,
      include_byok_in_budgets: true,
    }).expect(200);
    expect(res.body.include_byok_in_budgets).toBe(true);
    const weekly = await put(`/workspaces/${ws.slug}/budgets/weekly`, { limit_usd: 2 }).expect(200);
    expect(weekly.body.include_byok_in_budgets).toBe(true);
    expect((await get(`/workspaces/${ws.slug}/budgets`).expect(200)).body.include_byok_in_budgets).toBe(true);
    expect((await get(`/workspaces/${ws.slug}`).expect(200)).body.data.include_byok_in_budgets).toBe(true);
    await put(`/workspaces/${ws.slug}/budgets/weekly`, { limit_usd: 2, include_byok_in_budgets: false }).expect(200);
    expect((await get(`/workspaces/${ws.slug}/budgets/daily`).expect(200)).body.include_byok_in_budgets).toBe(false);
  });

  test('missing workspace → 404 on every budget route; other tenants → 404; inference key → 403', async () => {
    for (const ref of ['nope', '00000000-0000-4000-8000-000000000000']) {
      await put(`/workspaces/${ref}/budgets/daily`, { limit_usd: 1 }).expect(404);
      await get(`/workspaces/${ref}/budgets/daily`).expect(404);
      await get(`/workspaces/${ref}/budgets`).expect(404);
      await del(`/workspaces/${ref}/budgets/daily`).expect(404);
    }
    const theirs = await newWorkspace(other);
    await put(`/workspaces/${theirs.slug}/budgets/daily`, { limit_usd: 1 }, other).expect(200);
    await put(`/workspaces/${theirs.id}/budgets/daily`, { limit_usd: 1 }).expect(404);
    await get(`/workspaces/${theirs.id}/budgets/daily`).expect(404);
    await del(`/workspaces/${theirs.id}/budgets/daily`).expect(404);
    expect((await get(`/workspaces/${theirs.slug}/budgets/daily`, other).expect(200)).body.data.limit_usd).toBe(1);
    const key = await createInferenceKey(gw);
    await request(gw.app)
      .put('/api/v1/workspaces/default/budgets/daily')
      .set('Authorization', bearer(key.secret))
      .send({ limit_usd: 1 })
      .expect(403);
  });

  test('deleting a workspace deletes its budgets', async () => {
    const ws = await newWorkspace();
    await put(`/workspaces/${ws.slug}/budgets/daily`, { limit_usd: 1 }).expect(200);
    await del(`/workspaces/${ws.slug}`).expect(200);
    const rows = await db.query('SELECT id FROM workspace_budgets WHERE workspace_id = $1', [ws.id]);
    expect(rows).toEqual([]);
  });
});
