/**
 * Analytics over chat records on every database kind, through HTTP: time-to-first-token and
 * latency percentiles, output tokens per second, reasoning tokens, and the `api_type`,
 * `streamed` and `finish_reason` dimensions. Percentiles the hourly histograms answer (by
 * provider / api type) are within the histograms' stated relative error of the exact
 * `percentile_disc`; the rest are exact. The rollup's chat sums equal raw rows.
 */
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, createTestGateway, openTestGateway, type TestGateway } from '../helpers/gateway';
import { event } from '../helpers/analytics-fixture';
import { insertUsageEvents } from '../../src/usage/direct-recorder';
import { AnalyticsService } from '../../src/analytics/service';
import { refreshRollup } from '../../src/analytics/rollup';
import { RELATIVE_ERROR } from '../../src/analytics/histogram';
import type { QueryInput } from '../../src/analytics/types';
import type { UsageEvent } from '../../src/usage/types';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

const NOW = Date.parse('2026-11-20T12:30:00Z');
/** A window with partial hours at both edges: raw rows there, histograms in between. */
const EDGY = { start: '2026-11-05T03:17:00Z', end: '2026-11-16T09:43:30Z' };
const inWindow = (e: UsageEvent, w = EDGY) =>
  e.createdAt.getTime() >= Date.parse(w.start) && e.createdAt.getTime() < Date.parse(w.end);

/** A deterministic spread of values from 0 to about 30 s (a few exact zeros, a long tail). */
const spread = (i: number, salt: number) =>
  i % 97 === 0 ? 0 : Math.round(Math.exp(((i * 7919 + salt * 104729) % 1000) / 100));

/** The exact percentile_disc of `xs`: the smallest value with at least the fraction p at or below it. */
function disc(xs: number[], p: number): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(p * s.length - 1e-9) - 1)]!;
}

/** The exact percentile_cont of `xs` (linear interpolation), as Postgres computes it. */
function cont(xs: number[], p: number): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const pos = p * (s.length - 1);
  const lo = Math.floor(pos);
  return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (pos - lo);
}

describe.each(DATABASES)('analytics over chat records on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let raw: AnalyticsService;
  const events: UsageEvent[] = [];

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind, {}, () => NOW));
    const other = await createTestGateway(db, kv, {}, () => NOW);
    raw = new AnalyticsService(db, { timeoutMs: 10_000, clock: () => NOW, rollup: false });
    const ws = gw.defaultWorkspaceId;
    for (let i = 0; i < 480; i++) {
      const at = new Date(
        Date.parse('2026-11-04T00:00:00Z') + i * 45 * 60_000 + (i % 11) * 60_000 + 7_000,
      ).toISOString();
      const chat = i % 4 !== 3;
      events.push(
        event(
          gw.orgId,
          ws,
          'a'.repeat(64),
          at,
          chat
            ? {
                id: `gen-${Math.floor(Date.parse(at) / 1000)}-${String(i).padStart(20, '0')}`,
                apiType: 'chat',
                model: i % 2 ? 'anthropic/claude-sonnet-4' : 'openai/gpt-4o',
                provider: i % 2 ? 'anthropic' : 'openai',
                tokensPrompt: 100 + i,
                tokensCompletion: 20 + (i % 50),
                latencyMs: spread(i, 1) + 500,
                generationTimeMs: i % 10 === 0 ? 0 : 200 + (i % 300),
                timeToFirstTokenMs: i % 13 === 0 ? null : spread(i, 2),
                streamed: i % 3 !== 0,
                finishReason: ['stop', 'tool_calls', 'length'][i % 3]!,
                nativeFinishReason: 'end_turn',
                outputModality: 'text',
                reasoningTokens: i % 5,
                cacheWriteTokens: i % 7,
              }
            : { provider: i % 8 === 3 ? null : 'openai', latencyMs: spread(i, 3), generationTimeMs: 40 },
        ),
      );
    }
    await insertUsageEvents(db, events);
    // Another organization's rows, with values that would move every figure: never counted.
    await insertUsageEvents(
      db,
      [0, 1, 2].map((k) =>
        event(other.orgId, other.defaultWorkspaceId, 'c'.repeat(64), `2026-11-10T1${k}:00:00Z`, {
          apiType: 'chat',
          provider: 'openai',
          latencyMs: 9_000_000,
          timeToFirstTokenMs: 9_000_000,
          tokensCompletion: 1e6,
          generationTimeMs: 1,
          reasoningTokens: 1e6,
        }),
      ),
    );
    expect(await refreshRollup(db, NOW)).toBeGreaterThan(300);
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  const query = async (body: QueryInput) => {
    const res = await request(gw.app)
      .post('/api/v1/analytics/query')
      .set('Authorization', bearer(gw.mgmtKey))
      .send(body);
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    return res.body.data.data as Array<Record<string, number | string | null>>;
  };
  const ours = (pred: (e: UsageEvent) => boolean, w = EDGY) => events.filter((e) => inWindow(e, w) && pred(e));

  test('meta lists the chat metrics and dimensions; reasoning_tokens is no longer "not available"', async () => {
    const res = await request(gw.app)
      .get('/api/v1/analytics/meta')
      .set('Authorization', bearer(gw.mgmtKey))
      .expect(200);
    const metrics = new Map(
      (res.body.data.metrics as Array<{ name: string; display_format: string; is_rate: boolean }>).map((m) => [
        m.name,
        m,
      ]),
    );
    for (const n of ['avg_ttft', 'p50_ttft', 'p90_ttft', 'p99_ttft'])
      expect(metrics.get(n)).toMatchObject({ display_format: 'latency', is_rate: true });
    expect(metrics.get('output_tokens_per_second')).toMatchObject({ display_format: 'throughput', is_rate: true });
    expect(metrics.get('reasoning_tokens')).toMatchObject({ display_format: 'number', is_rate: false });
    const dims = (res.body.data.dimensions as Array<{ name: string }>).map((d) => d.name);
    expect(dims).toEqual(expect.arrayContaining(['api_type', 'streamed', 'finish_reason']));
  });

  test.each<[string, Partial<QueryInput>, (e: UsageEvent) => string]>([
    ['by provider', { dimensions: ['provider'] }, (e) => String(e.provider)],
    ['by api_type', { dimensions: ['api_type'] }, (e) => e.apiType],
    ['in total', {}, () => 'all'],
    [
      'by provider, filtered to chat',
      { dimensions: ['provider'], filters: [{ field: 'api_type', operator: 'eq', value: 'chat' }] },
      (e) => (e.apiType === 'chat' ? String(e.provider) : 'x'),
    ],
  ])(
    'latency and TTFT percentiles %s come from the histograms, within their relative error of the exact value',
    async (_name, shape, keyOf) => {
      const metrics = ['p50_latency', 'p90_latency', 'p99_latency', 'p50_ttft', 'p90_ttft', 'p99_ttft'];
      const rows = await query({ metrics, time_range: EDGY, ...shape });
      const dim = shape.dimensions?.[0];
      const groups = new Set(ours((e) => keyOf(e) !== 'x').map(keyOf));
      expect(rows.map((r) => (dim ? String(r[dim]) : 'all')).sort()).toEqual([...groups].sort());
      let inexact = 0;
      for (const row of rows) {
        const group = ours((e) => keyOf(e) === (dim ? String(row[dim]) : 'all'));
        for (const m of metrics) {
          const [pName, figure] = m.split('_') as [string, string];
          const values = group
            .map((e) => (figure === 'ttft' ? e.timeToFirstTokenMs : e.latencyMs))
            .filter((v): v is number => v !== null && v !== undefined);
          const exact = disc(values, Number(pName.slice(1)) / 100);
          if (exact === null) {
            expect(row[m]).toBeNull();
            continue;
          }
          expect(Math.abs((row[m] as number) - exact)).toBeLessThanOrEqual(exact * RELATIVE_ERROR + 1e-9);
          if (row[m] !== exact) inexact++;
        }
      }
      expect(inexact).toBeGreaterThan(0); // the histograms answered (raw rows would be exact)
    },
  );

  test('percentiles by a dimension the histograms do not keep are exact (raw rows): TTFT by streamed, latency by finish_reason', async () => {
    const rows = await query({
      metrics: ['p50_ttft', 'p99_ttft', 'avg_ttft'],
      dimensions: ['streamed'],
      time_range: EDGY,
    });
    expect(rows.map((r) => r.streamed).sort()).toEqual(['false', 'true']);
    for (const row of rows) {
      const ttft = ours((e) => String(e.streamed === true) === row.streamed)
        .map((e) => e.timeToFirstTokenMs)
        .filter((v): v is number => typeof v === 'number');
      expect(row.p50_ttft).toBeCloseTo(cont(ttft, 0.5)!, 9);
      expect(row.p99_ttft).toBeCloseTo(cont(ttft, 0.99)!, 9);
      expect(row.avg_ttft).toBeCloseTo(ttft.reduce((a, b) => a + b, 0) / ttft.length, 9);
    }
    const byFinish = await query({
      metrics: ['p90_latency', 'request_count'],
      dimensions: ['finish_reason'],
      time_range: EDGY,
    });
    for (const row of byFinish) {
      const group = ours((e) => (e.finishReason ?? null) === row.finish_reason);
      expect(row.request_count).toBe(group.length);
      expect(row.p90_latency).toBeCloseTo(
        cont(
          group.map((e) => e.latencyMs as number),
          0.9,
        )!,
        9,
      );
    }
    expect(byFinish.map((r) => r.finish_reason)).toEqual(
      expect.arrayContaining(['stop', 'tool_calls', 'length', null]),
    );
  });

  test('output tokens per second = completion tokens ÷ generation time over chat rows with a generation time, by api_type', async () => {
    const rows = await query({
      metrics: ['output_tokens_per_second', 'reasoning_tokens', 'request_count'],
      dimensions: ['api_type'],
      time_range: EDGY,
    });
    const timed = ours((e) => e.apiType === 'chat' && (e.generationTimeMs ?? 0) > 0);
    const tps =
      (timed.reduce((a, e) => a + e.tokensCompletion, 0) * 1000) /
      timed.reduce((a, e) => a + (e.generationTimeMs ?? 0), 0);
    const chat = rows.find((r) => r.api_type === 'chat')!;
    expect(chat.output_tokens_per_second).toBeCloseTo(tps, 9);
    expect(chat.reasoning_tokens).toBe(
      ours((e) => e.apiType === 'chat').reduce((a, e) => a + (e.reasoningTokens ?? 0), 0),
    );
    expect(rows.find((r) => r.api_type === 'embeddings')).toMatchObject({
      output_tokens_per_second: null,
      reasoning_tokens: 0,
    });
  });

  test('the rollup answers output tokens per second and reasoning tokens (365-day metrics) equal to raw rows', async () => {
    for (const body of [
      { metrics: ['output_tokens_per_second', 'reasoning_tokens'], time_range: EDGY },
      {
        metrics: ['output_tokens_per_second', 'reasoning_tokens'],
        dimensions: ['model'],
        granularity: 'day',
        time_range: { start: '2025-11-21T00:00:00Z', end: '2026-11-20T00:00:00Z' },
      },
    ] as QueryInput[]) {
      const fromRollup = await query(body);
      const fromRaw = (await raw.query(gw.orgId, body)).data;
      expect(fromRollup).toHaveLength(fromRaw.length);
      fromRaw.forEach((row, i) => {
        for (const [k, v] of Object.entries(row)) {
          if (typeof v === 'number') expect(fromRollup[i]![k]).toBeCloseTo(v, 9);
          else expect(fromRollup[i]![k]).toEqual(v);
        }
      });
    }
  });

  test('streamed and api_type filter like any dimension', async () => {
    const rows = await query({
      metrics: ['request_count'],
      dimensions: ['api_type'],
      filters: [{ field: 'streamed', operator: 'eq', value: 'true' }],
      time_range: EDGY,
    });
    expect(rows).toEqual([{ api_type: 'chat', request_count: ours((e) => e.streamed === true).length }]);
  });
});
