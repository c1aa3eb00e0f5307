/**
 * POST /analytics/query and GET /analytics/meta through HTTP on every database kind: meta,
 * every metric family and dimension over known rows, labels and warnings, granularities and
 * their row keys, order, limit, group_limit rules 1-4 and `truncated` (rule 5), 403, and
 * isolation: the other organization's row never shows in any dimension, filter or label.
 */
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, openTestGateway, type TestGateway } from '../helpers/gateway';
import { event, seedAnalytics, WINDOW, type Seeded } from '../helpers/analytics-fixture';
import { insertUsageEvents } from '../../src/usage/direct-recorder';
import type { Database } from '../../src/store/db';
import { expectSchema } from '../helpers/expect-schema';
import type { Kv } from '../../src/kv/kv';

type Row = Record<string, unknown>;

describe.each(DATABASES)('analytics on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let other: TestGateway;
  let s: Seeded;

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind));
    other = await createTestGateway(db, kv);
    s = await seedAnalytics(gw, other);
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  const query = (body: object, g: TestGateway = gw) =>
    request(g.app).post('/api/v1/analytics/query').set('Authorization', bearer(g.mgmtKey)).send(body);
  async function rows(body: object): Promise<Row[]> {
    const res = await query({ time_range: WINDOW, ...body });
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
    expectSchema(res.body, 'analytics.query.response');
    return res.body.data.data as Row[];
  }

  test('meta lists metrics, dimensions, operators and granularities in the reference shapes, only what has a source', async () => {
    const res = await request(gw.app)
      .get('/api/v1/analytics/meta')
      .set('Authorization', bearer(gw.mgmtKey))
      .expect(200);
    expectSchema(res.body, 'analytics.meta.response');
    const { metrics, dimensions, operators, granularities } = res.body.data;
    expect(metrics).toContainEqual({
      name: 'request_count',
      display_label: 'Request Count',
      is_rate: false,
      display_format: 'number',
    });
    expect(metrics).toContainEqual({
      name: 'p99_latency',
      display_label: 'P99 Latency',
      is_rate: true,
      display_format: 'latency',
    });
    expect(metrics).toContainEqual({
      name: 'total_usage',
      display_label: 'Total Usage',
      is_rate: false,
      display_format: 'currency',
    });
    const names = metrics.map((m: { name: string }) => m.name);
    for (const n of [
      'request_count',
      'tokens_total',
      'tokens_prompt',
      'tokens_completion',
      'total_usage',
      'usage_upstream',
      'byok_request_count',
      'byok_usage',
      'avg_latency',
      'p50_latency',
      'p90_latency',
      'p99_latency',
      'avg_throughput',
      'p50_throughput',
      'p90_throughput',
      'p99_throughput',
    ]) {
      expect(names).toContain(n);
    }
    expect(names).not.toContain('guardrail_invoked_count');
    expect(dimensions).toContainEqual({ name: 'model', display_label: 'Model' });
    expect(dimensions.map((d: { name: string }) => d.name).sort()).toEqual(
      [
        'api_key_id',
        'api_type',
        'app',
        'context_length_bucket',
        'external_user',
        'finish_reason',
        'generation_id',
        'model',
        'origin',
        'provider',
        'streamed',
        'user',
        'variant',
        'workspace',
      ].sort(),
    );
    expect(operators).toEqual([
      { name: 'eq', value_type: 'scalar' },
      { name: 'neq', value_type: 'scalar' },
      { name: 'gt', value_type: 'scalar' },
      { name: 'gte', value_type: 'scalar' },
      { name: 'lt', value_type: 'scalar' },
      { name: 'lte', value_type: 'scalar' },
      { name: 'in', value_type: 'array' },
      { name: 'not_in', value_type: 'array' },
    ]);
    expect(granularities.map((g: { name: string }) => g.name)).toEqual(['minute', 'hour', 'day', 'week', 'month']);
    expect(granularities[2]).toEqual({ name: 'day', display_label: 'Day' });
  });

  test('volume and cost metrics are sums over the organization (numbers, not strings)', async () => {
    const [row] = await rows({
      metrics: [
        'request_count',
        'tokens_total',
        'tokens_prompt',
        'tokens_completion',
        'cached_tokens',
        'byok_request_count',
        'total_usage',
        'credits_usage',
        'byok_usage',
        'usage_upstream',
        'cache_hit_rate',
      ],
    });
    expect(row).toEqual({
      request_count: 6,
      tokens_total: 2052106,
      tokens_prompt: 2052106,
      tokens_completion: 0,
      cached_tokens: 2,
      byok_request_count: 1,
      total_usage: expect.closeTo(0.0181, 10),
      credits_usage: expect.closeTo(0.0131, 10),
      byok_usage: expect.closeTo(0.005, 10),
      usage_upstream: expect.closeTo(0.005, 10),
      cache_hit_rate: expect.closeTo(2 / 2052106, 12),
    });
  });

  test('latency and throughput: averages and exact percentiles (percentile_cont) over raw rows, rows without a value ignored', async () => {
    const [row] = await rows({
      metrics: [
        'avg_latency',
        'p50_latency',
        'p90_latency',
        'p99_latency',
        'avg_throughput',
        'p50_throughput',
        'p90_throughput',
        'p99_throughput',
      ],
    });
    expect(row!.avg_latency).toBe(250);
    expect(row!.p50_latency).toBe(250);
    expect(row!.p90_latency).toBeCloseTo(370, 6);
    expect(row!.p99_latency).toBeCloseTo(397, 6);
    expect(row!.avg_throughput).toBeCloseTo(30625, 6);
    expect(row!.p50_throughput).toBeCloseTo(11000, 6);
    expect(row!.p90_throughput).toBeCloseTo(20000 + 0.7 * 80000, 6);
    expect(row!.p99_throughput).toBeCloseTo(20000 + 0.97 * 80000, 6);
  });

  test.each([
    ['model', { m1: 4, m2: 2 }],
    ['provider', { openai: 3, cohere: 1, voyage: 1, null: 1 }],
    ['variant', { free: 1, null: 5 }],
    ['finish_reason', { stop: 1, null: 5 }],
    ['external_user', { eu1: 1, eu2: 1, null: 4 }],
    ['app', { App1: 1, null: 5 }],
    ['origin', { 'https://a.example': 1, null: 5 }],
    ['context_length_bucket', { '1K': 3, '10K': 1, '100K': 1, '10M': 1 }],
    ['api_key_id', { alpha: 2, beta: 2 }],
    ['workspace', { Team: 2 }],
  ])('dimension %s groups this organization only, labels resolved', async (dim, expected) => {
    const got = await rows({ metrics: ['request_count'], dimensions: [dim] });
    const counts = Object.fromEntries(got.map((r) => [String(r[dim]), r.request_count]));
    for (const [k, v] of Object.entries(expected)) expect(counts[k]).toBe(v);
    expect(JSON.stringify(got)).not.toMatch(/secret/);
  });

  test("api_key_id: unresolvable hashes stay raw with a warning, another organization's key is never named", async () => {
    const res = await query({ time_range: WINDOW, metrics: ['request_count'], dimensions: ['api_key_id'] }).expect(200);
    const values = res.body.data.data.map((r: Row) => r.api_key_id);
    expect(values).toEqual(expect.arrayContaining(['alpha', 'beta', s.orphan, s.foreignHash]));
    expect(res.body.data.warnings).toEqual(
      expect.arrayContaining([expect.stringContaining('Could not resolve api_key_id hash: eeeeeeeeeeee')]),
    );
    expect(res.body.data.warnings).toHaveLength(2);
  });

  test('workspace label is the name; user is the key creator with user_email', async () => {
    const ws = await rows({
      metrics: ['request_count'],
      dimensions: ['workspace'],
      order_by: { field: 'request_count', direction: 'desc' },
    });
    expect(ws[0]).toEqual({ workspace: expect.any(String), request_count: 4 });
    expect(ws[1]).toEqual({ workspace: 'Team', request_count: 2 });
    const users = await rows({ metrics: ['request_count'], dimensions: ['user'] });
    expect(users).toContainEqual({ user: 'user_a', user_email: 'a@example.com', request_count: 2 });
    expect(users).toContainEqual({ user: null, user_email: null, request_count: 4 });
    expect(Object.keys(users[0]!)).toEqual(['user', 'user_email', 'request_count']);
  });

  test("a key created by another organization's user: the user id stays, no email, a warning", async () => {
    const gamma = (await createInferenceKey(gw, { name: 'gamma', creator_user_id: 'user_secret' })).hash;
    await insertUsageEvents(db, [event(gw.orgId, gw.defaultWorkspaceId, gamma, '2026-12-05T10:00:00Z')]);
    const res = await query({
      metrics: ['request_count'],
      dimensions: ['user'],
      time_range: { start: '2026-12-05T00:00:00Z', end: '2026-12-06T00:00:00Z' },
    }).expect(200);
    expect(res.body.data.data).toEqual([{ user: 'user_secret', user_email: null, request_count: 1 }]);
    expect(res.body.data.warnings).toEqual(['Could not resolve user: user_secret']);
    expect(JSON.stringify(res.body)).not.toMatch(/secret@other/);
  });

  test('generation_id dimension and two dimensions cross-grouped', async () => {
    const gens = await rows({ metrics: ['request_count'], dimensions: ['generation_id'] });
    expect(gens).toHaveLength(6);
    for (const r of gens) expect(r.generation_id).toMatch(/^gen-emb-/);
    const two = await rows({ metrics: ['request_count'], dimensions: ['model', 'provider'] });
    expect(two).toContainEqual({ model: 'm2', provider: 'cohere', request_count: 1 });
    expect(two).toContainEqual({ model: 'm1', provider: null, request_count: 1 });
    expect(two).toHaveLength(4);
  });

  test('filters: every operator, include_unset, ANDed; values of another organization match nothing', async () => {
    const count = async (filters: object[]) => (await rows({ metrics: ['request_count'], filters }))[0]!.request_count;
    expect(await count([{ field: 'model', operator: 'eq', value: 'm2' }])).toBe(2);
    expect(await count([{ field: 'model', operator: 'neq', value: 'm2' }])).toBe(4);
    expect(await count([{ field: 'provider', operator: 'in', value: ['cohere', 'voyage'] }])).toBe(2);
    expect(await count([{ field: 'provider', operator: 'in', value: ['cohere'], include_unset: true }])).toBe(2);
    expect(await count([{ field: 'provider', operator: 'not_in', value: ['openai'] }])).toBe(2);
    expect(await count([{ field: 'provider', operator: 'not_in', value: ['openai'], include_unset: true }])).toBe(3);
    expect(await count([{ field: 'api_key_id', operator: 'eq', value: s.alpha.toUpperCase() }])).toBe(2);
    expect(await count([{ field: 'workspace', operator: 'eq', value: s.teamId }])).toBe(2);
    expect(await count([{ field: 'user', operator: 'eq', value: 'user_a' }])).toBe(2);
    // Comparisons are on the text value (so '10K' < '1K'); ANDed with the model filter.
    expect(
      await count([
        { field: 'context_length_bucket', operator: 'gte', value: '1K' },
        { field: 'model', operator: 'eq', value: 'm1' },
      ]),
    ).toBe(2);
    expect(await count([{ field: 'external_user', operator: 'gt', value: 'eu1' }])).toBe(1);
    expect(
      await count([
        { field: 'model', operator: 'lt', value: 'm2' },
        { field: 'model', operator: 'lte', value: 'm1' },
      ]),
    ).toBe(4);
    for (const f of [
      { field: 'model', operator: 'eq', value: 'secret-model' },
      { field: 'provider', operator: 'eq', value: 'secret-prov' },
      { field: 'workspace', operator: 'eq', value: s.otherWorkspaceId },
      { field: 'user', operator: 'eq', value: 'user_secret' },
      { field: 'external_user', operator: 'in', value: ['secret-user'] },
    ]) {
      expect(await count([f])).toBe(0);
    }
  });

  test('granularities: date__<g> is the bucket start, ISO-8601 UTC with milliseconds; week starts on Monday', async () => {
    const days = await rows({ metrics: ['request_count'], granularity: 'day' });
    expect(days[0]).toEqual({ date__day: '2026-11-14T00:00:00.000Z', request_count: 1 });
    expect(days.map((r) => r.date__day)).toEqual([
      '2026-11-14T00:00:00.000Z',
      '2026-11-13T00:00:00.000Z',
      '2026-11-12T00:00:00.000Z',
      '2026-11-11T00:00:00.000Z',
      '2026-11-10T00:00:00.000Z',
    ]);
    const weeks = await rows({ metrics: ['request_count'], granularity: 'week' });
    expect(weeks).toEqual([{ date__week: '2026-11-09T00:00:00.000Z', request_count: 6 }]);
    const mondays = await rows({
      metrics: ['request_count'],
      granularity: 'week',
      time_range: { start: '2026-11-01T00:00:00Z', end: '2026-11-10T12:00:00Z' },
    });
    expect(mondays).toEqual([{ date__week: '2026-11-09T00:00:00.000Z', request_count: 2 }]);
    const months = await rows({ metrics: ['request_count'], granularity: 'month' });
    expect(months).toEqual([{ date__month: '2026-11-01T00:00:00.000Z', request_count: 6 }]);
    const hours = await rows({
      metrics: ['request_count'],
      granularity: 'hour',
      filters: [{ field: 'model', operator: 'eq', value: 'm1' }],
      order_by: { field: 'date', direction: 'asc' },
    });
    expect(hours[0]).toEqual({ date__hour: '2026-11-10T10:00:00.000Z', request_count: 1 });
    expect(hours[1]).toEqual({ date__hour: '2026-11-10T11:00:00.000Z', request_count: 1 });
    const minutes = await query({
      metrics: ['request_count'],
      granularity: 'minute',
      time_range: { start: '2026-11-10T09:00:00Z', end: '2026-11-10T12:00:00Z' },
    }).expect(200);
    expect(minutes.body.data.data).toEqual([
      { date__minute: '2026-11-10T11:30:00.000Z', request_count: 1 },
      { date__minute: '2026-11-10T10:00:00.000Z', request_count: 1 },
    ]);
  });

  test('time_range accepts fractional seconds (what the SDK sends) and defaults to the last 7 days', async () => {
    await query({
      metrics: ['request_count'],
      time_range: { start: '2026-11-01T00:00:00.000Z', end: '2026-11-20T00:00:00.000Z' },
    }).expect(200);
    // The default window is the 7 days before the gateway's clock (fixed by a gateway of its own).
    const clocked = await createTestGateway(db, kv, {}, () => Date.parse('2026-11-12T12:00:00Z'));
    await insertUsageEvents(db, [
      event(clocked.orgId, clocked.defaultWorkspaceId, 'a'.repeat(64), '2026-11-05T13:00:00Z'),
      event(clocked.orgId, clocked.defaultWorkspaceId, 'a'.repeat(64), '2026-11-05T11:00:00Z'),
      event(clocked.orgId, clocked.defaultWorkspaceId, 'a'.repeat(64), '2026-11-12T11:00:00Z'),
      event(clocked.orgId, clocked.defaultWorkspaceId, 'a'.repeat(64), '2026-11-12T13:00:00Z'),
    ]);
    const res = await query({ metrics: ['request_count'] }, clocked).expect(200);
    expect(res.body.data.data).toEqual([{ request_count: 2 }]);
  });

  test('order_by a metric, request_count when not requested, a dimension; limit and truncated', async () => {
    const byTokens = await rows({
      metrics: ['tokens_prompt'],
      dimensions: ['provider'],
      order_by: { field: 'tokens_prompt', direction: 'asc' },
    });
    expect(byTokens.map((r) => r.provider)).toEqual(['voyage', 'openai', 'cohere', null]);
    expect(byTokens[0]).toEqual({ provider: 'voyage', tokens_prompt: 5 });
    const byCount = await rows({
      metrics: ['tokens_prompt'],
      dimensions: ['model'],
      order_by: { field: 'request_count', direction: 'desc' },
    });
    expect(byCount.map((r) => r.model)).toEqual(['m1', 'm2']);
    expect(byCount[0]).not.toHaveProperty('request_count');
    const byDim = await rows({
      metrics: ['request_count'],
      dimensions: ['model'],
      order_by: { field: 'model', direction: 'desc' },
    });
    expect(byDim.map((r) => r.model)).toEqual(['m2', 'm1']);
    const limited = await query({
      time_range: WINDOW,
      metrics: ['request_count'],
      dimensions: ['generation_id'],
      limit: 4,
    }).expect(200);
    expect(limited.body.data.data).toHaveLength(4);
    expect(limited.body.data.metadata).toEqual({ query_time_ms: expect.any(Number), row_count: 4, truncated: true });
    const whole = await query({
      time_range: WINDOW,
      metrics: ['request_count'],
      dimensions: ['generation_id'],
      limit: 6,
    }).expect(200);
    expect(whole.body.data.metadata).toMatchObject({ row_count: 6, truncated: false });
  });

  test('group_limit: computed for time series (rule 1), explicit truncates buckets (2), ignored without dimensions (3), limit raised (4), truncated reported (5)', async () => {
    // Rule 1 + 4: day x model with limit 2 would cut; the service raises limit to fit every bucket of every group.
    const auto = await query({
      time_range: WINDOW,
      metrics: ['request_count'],
      dimensions: ['model'],
      granularity: 'day',
      limit: 2,
    }).expect(200);
    expect(auto.body.data.data).toHaveLength(5);
    expect(auto.body.data.metadata.truncated).toBe(false);
    // Rule 2: top 1 day per model.
    const top = await query({
      time_range: WINDOW,
      metrics: ['request_count'],
      dimensions: ['model'],
      granularity: 'day',
      group_limit: 1,
      order_by: { field: 'request_count', direction: 'desc' },
    }).expect(200);
    expect(top.body.data.data).toEqual([
      { date__day: '2026-11-10T00:00:00.000Z', model: 'm1', request_count: 2 },
      { date__day: '2026-11-11T00:00:00.000Z', model: 'm2', request_count: 1 },
    ]);
    expect(top.body.data.metadata).toMatchObject({ row_count: 2, truncated: true });
    // A group_limit no group exceeds cuts nothing.
    const roomy = await query({
      time_range: WINDOW,
      metrics: ['request_count'],
      dimensions: ['model'],
      granularity: 'day',
      group_limit: 10,
    }).expect(200);
    expect(roomy.body.data.metadata).toMatchObject({ row_count: 5, truncated: false });
    // Rule 3: no dimensions → group_limit ignored, every bucket returned.
    const none = await query({
      time_range: WINDOW,
      metrics: ['request_count'],
      granularity: 'day',
      group_limit: 1,
    }).expect(200);
    expect(none.body.data.data).toHaveLength(5);
    expect(none.body.data.metadata.truncated).toBe(false);
    // With an explicit group_limit, limit is not raised.
    const capped = await query({
      time_range: WINDOW,
      metrics: ['request_count'],
      dimensions: ['model'],
      granularity: 'day',
      group_limit: 10,
      limit: 2,
    }).expect(200);
    expect(capped.body.data.metadata).toMatchObject({ row_count: 2, truncated: true });
  });

  test('a non-management key gets 403 on both routes', async () => {
    const { secret } = await createInferenceKey(gw, { name: 'inference' });
    for (const r of [
      request(gw.app).get('/api/v1/analytics/meta'),
      request(gw.app)
        .post('/api/v1/analytics/query')
        .send({ metrics: ['request_count'] }),
    ]) {
      const res = await r.set('Authorization', bearer(secret));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: { code: 403, message: 'Only management keys can perform this operation' } });
    }
  });

  test('the other organization sees only its own row, under every dimension', async () => {
    for (const dim of [
      'model',
      'provider',
      'api_key_id',
      'workspace',
      'user',
      'app',
      'external_user',
      'origin',
      'variant',
      'finish_reason',
    ]) {
      const res = await query(
        { time_range: WINDOW, metrics: ['request_count', 'total_usage'], dimensions: [dim] },
        other,
      ).expect(200);
      expect(res.body.data.data).toHaveLength(1);
      expect(res.body.data.data[0]).toMatchObject({ request_count: 1, total_usage: 7 });
      expect(JSON.stringify(res.body)).not.toMatch(/alpha|beta|Team|m2|cohere|eu1|a@example/);
    }
  });
});
