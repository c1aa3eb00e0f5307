/**
 * The hourly rollup on every database kind: answers equal to raw rows (windows with partial
 * hours at both edges, every rollup metric and dimension, filters, granularities), idempotent
 * refreshes, late records picked up within the lookback, and raw-row retention (the rollup
 * keeps 365-day answers after the raw rows are gone; tags go with their rows).
 */
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, createTestGateway, openTestGateway, type TestGateway } from '../helpers/gateway';
import { event } from '../helpers/analytics-fixture';
import { insertUsageEvents } from '../../src/usage/direct-recorder';
import { AnalyticsService } from '../../src/analytics/service';
import { applyRetention, refreshRollup, rollupWatermark } from '../../src/analytics/rollup';
import { runMaintenance } from '../../src/analytics/maintenance';
import type { QueryInput } from '../../src/analytics/types';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

const NOW = Date.parse('2026-11-20T12:30:00Z');
const METRICS = [
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
];

describe.each(DATABASES)('analytics rollup on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let other: TestGateway;
  let raw: AnalyticsService;

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind, {}, () => NOW));
    other = await createTestGateway(db, kv, {}, () => NOW);
    raw = new AnalyticsService(db, { timeoutMs: 10_000, clock: () => NOW, rollup: false });
    const ws = gw.defaultWorkspaceId;
    const events = [];
    // 60 rows over ~40 days, every few hours at uneven minutes, varied dimensions.
    for (let i = 0; i < 60; i++) {
      const at = new Date(
        Date.parse('2026-10-10T00:00:00Z') + i * 16 * 3_600_000 + (i % 7) * 7 * 60_000 + 13_000,
      ).toISOString();
      events.push(
        event(gw.orgId, ws, (i % 3 === 0 ? 'a' : 'b').repeat(64), at, {
          model: `m${i % 4}`,
          variant: i % 5 === 0 ? 'free' : null,
          appTitle: i % 2 === 0 ? 'App' : null,
          httpReferer: i % 3 === 0 ? 'https://r.example' : null,
          tokensPrompt: 10 * i + 1,
          tokensCompletion: i % 2,
          cachedTokens: i % 3,
          costUsd: 0.001 * i,
          isByok: i % 4 === 0,
          upstreamCostUsd: i % 2 === 0 ? 0.0005 * i : null,
        }),
      );
    }
    events.push(
      event(other.orgId, other.defaultWorkspaceId, 'c'.repeat(64), '2026-11-01T10:00:00Z', {
        model: 'secret',
        costUsd: 99,
      }),
    );
    await insertUsageEvents(db, events);
    expect(await refreshRollup(db, NOW)).toBeGreaterThan(900);
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  const viaHttp = async (body: object) => {
    const res = await request(gw.app)
      .post('/api/v1/analytics/query')
      .set('Authorization', bearer(gw.mgmtKey))
      .send(body);
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.data.data as Array<Record<string, unknown>>;
  };
  const sameAnswers = async (body: QueryInput) => {
    const fromRollup = await viaHttp(body);
    const fromRaw = (await raw.query(gw.orgId, body)).data;
    expect(fromRollup).toHaveLength(fromRaw.length);
    fromRaw.forEach((row, i) => {
      for (const [k, v] of Object.entries(row)) {
        if (typeof v === 'number') expect(fromRollup[i]![k]).toBeCloseTo(v, 9);
        else expect(fromRollup[i]![k]).toEqual(v);
      }
    });
    return fromRollup;
  };

  test.each<[string, QueryInput]>([
    [
      'totals over a window with partial hours at both edges',
      { metrics: METRICS, time_range: { start: '2026-10-12T05:17:00Z', end: '2026-11-15T09:43:30Z' } },
    ],
    [
      'daily by model',
      {
        metrics: ['request_count', 'total_usage'],
        dimensions: ['model'],
        granularity: 'day',
        time_range: { start: '2026-10-01T00:00:00Z', end: '2026-11-20T00:00:00Z' },
      },
    ],
    [
      'monthly by workspace',
      {
        metrics: ['total_usage'],
        dimensions: ['workspace'],
        granularity: 'month',
        time_range: { start: '2025-11-21T00:00:00Z', end: '2026-11-20T00:00:00Z' },
      },
    ],
    [
      'hourly by api key, filtered',
      {
        metrics: ['request_count'],
        dimensions: ['api_key_id'],
        granularity: 'hour',
        filters: [{ field: 'model', operator: 'in', value: ['m1', 'm2'] }],
        time_range: { start: '2026-10-20T00:30:00Z', end: '2026-10-25T00:00:00Z' },
      },
    ],
    [
      'variant and app, unset included',
      {
        metrics: ['request_count', 'tokens_prompt'],
        dimensions: ['variant', 'app'],
        filters: [{ field: 'app', operator: 'not_in', value: ['https://r.example'], include_unset: true }],
        time_range: { start: '2026-10-01T00:00:00Z', end: '2026-11-20T00:00:00Z' },
      },
    ],
    [
      'weekly, group_limit',
      {
        metrics: ['request_count'],
        dimensions: ['model'],
        granularity: 'week',
        group_limit: 2,
        order_by: { field: 'request_count', direction: 'desc' },
        time_range: { start: '2026-10-01T00:00:00Z', end: '2026-11-20T00:00:00Z' },
      },
    ],
    [
      'a window past the watermark (raw rows only at its end)',
      { metrics: ['request_count'], time_range: { start: '2026-11-19T00:00:00Z', end: '2026-11-21T00:00:00Z' } },
    ],
  ])('%s: rollup answers equal raw rows', async (_name, body) => {
    const rows = await sameAnswers(body);
    expect(JSON.stringify(rows)).not.toMatch(/secret/);
  });

  test('a refresh is idempotent; late records are picked up, within the lookback and days behind it', async () => {
    const count = async () =>
      (
        await db.query<{ n: number; s: number }>(
          'SELECT count(*)::int AS n, sum(request_count)::int AS s FROM usage_rollup_hourly',
        )
      )[0]!;
    const before = await count();
    await refreshRollup(db, NOW);
    await refreshRollup(db, NOW);
    expect(await count()).toEqual(before);
    const mark = await rollupWatermark(db);
    expect(mark!.until.toISOString()).toBe('2026-11-20T12:00:00.000Z');
    // Written late, for an hour the rollup already holds.
    await insertUsageEvents(db, [
      event(gw.orgId, gw.defaultWorkspaceId, 'a'.repeat(64), '2026-11-20T10:45:00Z', { model: 'late' }),
    ]);
    await refreshRollup(db, NOW);
    expect((await count()).s).toBe(before.s + 1);
    await sameAnswers({
      metrics: ['request_count'],
      dimensions: ['model'],
      time_range: { start: '2026-11-01T00:00:00Z', end: '2026-11-20T12:00:00Z' },
    });
    // Written days late (an outbox drained after a long outage), far behind the lookback: its
    // hour is recomputed because the row arrived after the last refresh.
    await insertUsageEvents(db, [
      event(gw.orgId, gw.defaultWorkspaceId, 'a'.repeat(64), '2026-11-14T03:20:00Z', { model: 'very-late' }),
    ]);
    await refreshRollup(db, NOW);
    expect((await count()).s).toBe(before.s + 2);
    await sameAnswers({
      metrics: ['request_count'],
      dimensions: ['model'],
      time_range: { start: '2026-11-01T00:00:00Z', end: '2026-11-20T12:00:00Z' },
    });
  });

  test('retention deletes raw rows (and their tags) past the cutoff; the rollup still answers for them', async () => {
    const body = {
      metrics: ['request_count'],
      time_range: { start: '2026-10-01T00:00:00Z', end: '2026-11-20T12:00:00Z' },
    };
    const total = (await viaHttp(body))[0]!.request_count;
    await db.query(
      `INSERT INTO classifiers (id, org_id, workspace_id, name, sample_rate, dimensions) VALUES ('11111111-2222-4333-8444-555555555555', $1, $2, 'c', 1, '[]')`,
      [gw.orgId, gw.defaultWorkspaceId],
    );
    await db.query(
      `INSERT INTO generation_tags (generation_id, classifier_id, dimension, org_id, value, created_at)
       SELECT id, '11111111-2222-4333-8444-555555555555', 'd', org_id, 'v', created_at FROM generations WHERE org_id = $1`,
      [gw.orgId],
    );
    // 32 days before NOW: 2026-10-19T12:30Z.
    const deleted = await applyRetention(db, NOW, 32, 7);
    const [left] = await db.query<{ n: number; old: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE created_at < '2026-10-19T12:30:00Z')::int AS old FROM generations`,
    );
    expect(deleted).toBeGreaterThan(7);
    expect(left!.old).toBe(0);
    const [tags] = await db.query<{ old: number }>(
      `SELECT count(*) FILTER (WHERE created_at < '2026-10-19T12:30:00Z')::int AS old FROM generation_tags`,
    );
    expect(tags!.old).toBe(0);
    expect((await viaHttp(body))[0]!.request_count).toBe(total);
    expect((await raw.query(gw.orgId, body)).data[0]!.request_count).toBe(Number(total) - deleted);
    // Maintenance runs both; nothing more is past the cutoff.
    expect(await runMaintenance(db, NOW, 32)).toEqual({ hours: expect.any(Number), deleted: 0 });
  });
});
