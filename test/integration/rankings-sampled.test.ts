/**
 * The sampled `category` / `language_type` datasets. End to end on PGlite: embeddings requests
 * through a fake upstream are sampled, classified on the classifier thread after the answer and
 * stored with weight 1 / rate; the rollup aggregates them weekly and upsampled. On every
 * database: weekly aggregation, upsampling, the trailing week past end_date, month assignment by
 * week start, weeks starting before start_date left out. The sampler's bounds: a full queue
 * drops (counted), a failing classifier is counted, and a stuck one never delays an answer.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { DATABASES } from '../helpers/services';
import { createTestGateway, type TestGateway } from '../helpers/gateway';
import { getRankings } from '../helpers/rankings';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { MemoryKv } from '../../src/kv/memory';
import type { Database } from '../../src/store/db';
import { closeRankings } from '../../src/datasets';
import { RankingsSampler, type Classify } from '../../src/datasets/sampler';
import { Metrics } from '../../src/observability/metrics';
import { createLogger } from '../../src/observability/logger';
import { switchable } from '../helpers/switchable';

const SMALL = 'openai/text-embedding-3-small';

describe('sampling embeddings traffic (PGlite, real classifier thread)', () => {
  let h: GatewayHarness;
  /** The sampler a test replaces for a while: the gateway is built over this stand-in. */
  const samplers = switchable<RankingsSampler>();

  beforeAll(async () => {
    // Tests fix random() at 0: with rate 0.25 every request is sampled, each weighing 4.
    h = await startGatewayHarness({
      overrides: { rankings: { sampleRate: 0.25 } },
      wrap: { rankings: (built) => ({ ...built, sampler: samplers.wrap(built.sampler) }) },
    });
  });
  afterAll(async () => {
    await closeRankings(h.gw.deps.rankings);
    await h.close();
  });

  test('sampled inputs are classified after the answer, stored weighted, rolled up weekly and upsampled', async () => {
    h.clock.now = Date.UTC(2026, 10, 3, 12); // Tuesday 2026-11-03, week of Monday 2026-11-02
    const code = 'def add(a, b):\n    return a + b\n\nprint(add(1, 2))\n';
    const prose = 'What are the early symptoms of type 2 diabetes and when should I see a doctor?';
    for (const input of [code, prose, [prose, prose]])
      expect((await h.post({ model: SMALL.toUpperCase(), input })).status).toBe(200);
    expect((await h.post({ model: SMALL, input: [1, 2, 3] })).status).toBe(200); // token ids: no text, skipped
    await h.gw.deps.rankings.sampler.flush();
    const samples = await h.db.query<{
      model: string;
      weight: number;
      language_type: string;
      category: string | null;
      tokens: number;
    }>('SELECT model, weight, language_type, category, tokens FROM rankings_samples ORDER BY id');
    expect(samples.map((s) => [s.model, s.weight, s.language_type, s.category])).toEqual([
      [SMALL, 4, 'programming', 'programming'],
      [SMALL, 4, 'natural', 'health'],
      [SMALL, 4, 'natural', 'health'],
    ]);
    // Each sample holds its request's charged tokens: the usage record's figure, not a recount.
    expect(samples.map((s) => s.tokens)).toEqual(h.events.slice(0, 3).map((e) => e.tokensPrompt));
    const metrics = await h.gw.deps.metrics.registry.metrics();
    expect(metrics).toMatch(/switchyard_rankings_samples_total\{outcome="stored"\} 3/);
    expect(metrics).toMatch(/switchyard_rankings_samples_total\{outcome="skipped"\} 1/);

    await h.gw.deps.recorder.flush();
    await h.gw.deps.rankings.rollup.run();
    const health = await getRankings(h.gw.app, h.key, {
      category: 'health',
      start_date: '2026-11-02',
      end_date: '2026-11-03',
    });
    expect(health.status).toBe(200);
    const tokens = samples.filter((s) => s.category === 'health').reduce((n, s) => n + s.tokens * 4, 0);
    expect(health.body.data).toEqual([{ date: '2026-11-02', model_permaslug: SMALL, total_tokens: String(tokens) }]);
    const programming = await getRankings(h.gw.app, h.key, {
      language_type: 'programming',
      start_date: '2026-11-02',
      end_date: '2026-11-03',
    });
    expect(programming.body.data).toEqual([
      {
        date: '2026-11-02',
        model_permaslug: SMALL,
        total_tokens: String((samples[0] as { tokens: number }).tokens * 4),
      },
    ]);
  });

  test('a stuck classifier never delays an answer; the queue bound drops and counts the rest', async () => {
    const metrics = new Metrics();
    const stuck: Classify = () => new Promise(() => undefined);
    samplers.use(
      new RankingsSampler(
        h.db,
        stuck,
        { rate: 1, maxPerSecond: 1000, queueMax: 2, random: () => 0, clock: () => h.clock.now, modelId: (m) => m },
        metrics,
        createLogger('silent'),
      ),
    );
    try {
      for (let i = 0; i < 5; i++) {
        const res = await h.post({ model: SMALL, input: `request number ${i} about the quarterly budget` });
        expect(res.status).toBe(200);
        expect(res.body.data).toHaveLength(1);
      }
      // One is with the classifier, two wait in the queue: the other two were dropped.
      expect(await metrics.registry.metrics()).toMatch(/switchyard_rankings_samples_total\{outcome="dropped"\} 2/);
    } finally {
      samplers.use(undefined);
    }
  });
});

describe('sampler failures', () => {
  test('a failing classifier or store is counted and logged; later samples still go through', async () => {
    const metrics = new Metrics();
    let calls = 0;
    const flaky: Classify = () =>
      ++calls === 1
        ? Promise.reject(new Error('model failed'))
        : Promise.resolve({ languageType: 'natural', category: null });
    const stored: unknown[][] = [];
    const db = {
      query: (_sql: string, params: unknown[]) => Promise.resolve(void stored.push(params)),
    } as unknown as Database;
    const sampler = new RankingsSampler(
      db,
      flaky,
      { rate: 0.5, maxPerSecond: 1000, queueMax: 10, random: () => 0.4, clock: () => 0, modelId: (m) => m },
      metrics,
      createLogger('silent'),
    );
    const res = () => new EventEmitter() as unknown as ServerResponse;
    const a = res();
    const b = res();
    sampler.offer(a, { orgId: '00000000-0000-4000-8000-000000000001', model: 'm/x', input: 'first text', tokens: 2 });
    sampler.offer(b, { orgId: '00000000-0000-4000-8000-000000000001', model: 'm/x', input: 'second text', tokens: 2 });
    // Nothing happens before the answer has finished.
    await new Promise((r) => setImmediate(r));
    expect(calls).toBe(0);
    a.emit('finish');
    b.emit('finish');
    await sampler.flush();
    expect(calls).toBe(2);
    expect(stored).toHaveLength(1);
    expect(stored[0]?.[4]).toBe(2); // weight 1 / 0.5
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/outcome="failed"\} 1/);
    expect(text).toMatch(/outcome="stored"\} 1/);
    // A draw at or above the rate is not sampled.
    const c = res();
    new RankingsSampler(
      db,
      flaky,
      { rate: 0.3, maxPerSecond: 1000, queueMax: 10, random: () => 0.4, clock: () => 0, modelId: (m) => m },
      metrics,
      createLogger('silent'),
    ).offer(c, { orgId: 'o', model: 'm', input: 'x', tokens: 1 });
    expect(c.listenerCount('finish')).toBe(0);
  });
});

describe.each(DATABASES)('sampled datasets on $name', (dbKind) => {
  let db: Database;
  let gw: TestGateway;

  beforeAll(async () => {
    db = await dbKind.open();
    gw = await createTestGateway(db, new MemoryKv(), {}, () => Date.UTC(2026, 4, 12, 2));
    const sample = (
      at: string,
      model: string,
      tokens: number,
      weight: number,
      languageType: string,
      category: string | null,
    ) =>
      db.query(
        'INSERT INTO rankings_samples (sampled_at, org_id, model, tokens, weight, language_type, category) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [at, gw.orgId, model, tokens, weight, languageType, category],
      );
    // Week of 2026-04-27 (Mon): Thursday 2026-04-30 and Friday 2026-05-01 (May, but the week starts in April).
    await sample('2026-04-30T10:00:00Z', 'v/a', 100, 20, 'natural', 'legal');
    await sample('2026-05-01T10:00:00Z', 'v/b', 10, 20, 'programming', 'programming');
    // Week of 2026-05-04: Monday and Sunday 2026-05-10 (past an end_date of 2026-05-05).
    await sample('2026-05-04T10:00:00Z', 'v/a', 3, 20, 'natural', 'legal');
    await sample('2026-05-10T23:00:00Z', 'v/a', 2, 20, 'natural', 'legal');
    await sample('2026-05-05T10:00:00Z', 'v/b', 1, 10, 'natural', null); // no category: only language_type
    await gw.deps.rankings.rollup.rollRange(20570, 20585); // 2026-04-26 … 2026-05-11
  });
  afterAll(async () => {
    await db.close();
  });

  test('weekly, upsampled by the weight; the trailing week includes traffic past end_date; period defaults to week', async () => {
    const res = await getRankings(gw.app, gw.mgmtKey, {
      category: 'legal',
      start_date: '2026-04-27',
      end_date: '2026-05-05',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { date: '2026-04-27', model_permaslug: 'v/a', total_tokens: '2000' },
      { date: '2026-05-04', model_permaslug: 'v/a', total_tokens: '100' },
    ]);
    expect(res.body.meta).toMatchObject({ start_date: '2026-04-27', end_date: '2026-05-05', version: 'v1' });
  });

  test('a week starting before start_date is left out', async () => {
    const res = await getRankings(gw.app, gw.mgmtKey, {
      category: 'legal',
      start_date: '2026-04-28',
      end_date: '2026-05-05',
    });
    expect(res.body.data).toEqual([{ date: '2026-05-04', model_permaslug: 'v/a', total_tokens: '100' }]);
  });

  test('period=month: each week in the month of its week start', async () => {
    const res = await getRankings(gw.app, gw.mgmtKey, {
      language_type: 'natural',
      start_date: '2026-04-27',
      end_date: '2026-05-31',
      period: 'month',
    });
    expect(res.body.data).toEqual([
      { date: '2026-04-01', model_permaslug: 'v/a', total_tokens: '2000' },
      { date: '2026-05-01', model_permaslug: 'v/a', total_tokens: '100' },
      { date: '2026-05-01', model_permaslug: 'v/b', total_tokens: '10' },
    ]);
    const programming = await getRankings(gw.app, gw.mgmtKey, {
      category: 'programming',
      start_date: '2026-04-27',
      end_date: '2026-05-31',
      period: 'month',
    });
    // Friday 2026-05-01 belongs to the week of 2026-04-27, so to April.
    expect(programming.body.data).toEqual([{ date: '2026-04-01', model_permaslug: 'v/b', total_tokens: '200' }]);
  });

  test('a category nobody used answers 200 with no rows', async () => {
    const res = await getRankings(gw.app, gw.mgmtKey, {
      category: 'trivia',
      start_date: '2026-04-27',
      end_date: '2026-05-31',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });
});
