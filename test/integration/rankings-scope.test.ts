/**
 * The rankings dataset's scope and limits through HTTP: the installation scope's publication
 * rules with the noise turned down to nothing (a model named on a day only when enough
 * organizations used it and none dominates it, else in `other`; contributions clamped; only
 * completed days and weeks; the same answer for every tenant), and the route's limits: per key per minute and per organization per day, with
 * the usual 429 answer and headers, on every Kv.
 */
import { DATABASES, KVS } from '../helpers/services';
import { createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import { getRankings, insertUses, type RankedUse } from '../helpers/rankings';
import { MemoryKv } from '../../src/kv/memory';
import type { Kv } from '../../src/kv/kv';
import type { Database } from '../../src/store/db';
import { provisionOrg } from '../../src/orgs/provision';

const NOW = Date.UTC(2026, 4, 12, 2, 0);
/**
 * No noise: scale = clamp / epsilon = 0.01, so a draw is non-zero only for a uniform below
 * e^-100, which 53 bits cannot give. The noise itself is tested in rankings-privacy and unit tests.
 */
const EXACT = {
  scope: 'installation',
  minOrganizations: 3,
  maxOrgShare: 0.5,
  clampTokens: 10_000,
  epsilon: 1_000_000,
  publishDelayMs: 3_600_000,
} as const;

describe.each(DATABASES)('installation scope on $name', (dbKind) => {
  let db: Database;
  let gw: TestGateway;
  let now = Date.UTC(2026, 4, 12, 0, 30);
  const orgs: Array<{ id: string; secret: string }> = [];
  let early: { published: string[]; answer: unknown };

  beforeAll(async () => {
    db = await dbKind.open();
    gw = await createTestGateway(db, new MemoryKv(), { rankings: EXACT }, () => now);
    for (let i = 0; i < 4; i++) {
      const o = await db.transaction((tx) => provisionOrg(tx, `Org ${i}`));
      orgs.push({ id: o.org.id, secret: o.secret });
    }
    const use = (org: number, model: string, at: string, prompt: number): RankedUse => ({
      org: orgs[org]!.id,
      model,
      at,
      prompt,
    });
    await insertUses(db, [
      // 2026-05-04 (Monday): A by three organizations, B by two, C by all four.
      use(0, 'v/a', '2026-05-04T01:00:00Z', 100),
      use(1, 'v/a', '2026-05-04T02:00:00Z', 100),
      use(2, 'v/a', '2026-05-04T03:00:00Z', 100),
      use(0, 'v/b', '2026-05-04T01:00:00Z', 500),
      use(1, 'v/b', '2026-05-04T02:00:00Z', 500),
      ...[0, 1, 2, 3].map((o) => use(o, 'v/c', '2026-05-04T05:00:00Z', 10)),
      // 2026-05-05: C by two organizations only, with many tokens from one of them.
      use(3, 'v/c', '2026-05-05T05:00:00Z', 10_000),
      use(2, 'v/c', '2026-05-05T05:00:00Z', 1),
      // 2026-05-06: D by three organizations, one of them with more than half its tokens; E evenly.
      use(0, 'v/d', '2026-05-06T01:00:00Z', 10),
      use(1, 'v/d', '2026-05-06T01:00:00Z', 10),
      use(2, 'v/d', '2026-05-06T01:00:00Z', 100),
      ...[0, 1, 2].map((o) => use(o, 'v/e', '2026-05-06T02:00:00Z', 50)),
      // 2026-05-07: F by four organizations with 20,000 tokens each, counted at most 10,000 each.
      ...[0, 1, 2, 3].map((o) => use(o, 'v/f', '2026-05-07T02:00:00Z', 20_000)),
      // 2026-05-08: H by three organizations, text output with tool calls.
      ...[0, 1, 2].map((o): RankedUse => ({
        ...use(o, 'v/h', '2026-05-08T02:00:00Z', 20),
        outputModality: 'text',
        toolCalls: 1,
      })),
      // 2026-05-11 (yesterday) and 2026-05-12 (today): G by three organizations.
      ...[0, 1, 2].flatMap((o) => [use(o, 'v/g', '2026-05-11T12:00:00Z', 7), use(o, 'v/g', '2026-05-12T00:10:00Z', 7)]),
    ]);
    const sample = (org: number, at: string, model: string, tokens: number, category: string) =>
      db.query(
        'INSERT INTO rankings_samples (sampled_at, org_id, model, tokens, weight, language_type, category) VALUES ($1, $2, $3, $4, 10, $5, $6)',
        [at, orgs[org]!.id, model, tokens, 'natural', category],
      );
    // Week of 2026-05-04: legal by three organizations on v/a, one on v/b; week of 2026-05-11 (not over).
    for (const o of [0, 1, 2]) await sample(o, '2026-05-05T10:00:00Z', 'v/a', 10, 'legal');
    await sample(3, '2026-05-06T10:00:00Z', 'v/b', 4, 'legal');
    for (const o of [0, 1, 2]) await sample(o, '2026-05-11T10:00:00Z', 'v/a', 10, 'legal');
    // At 00:30 yesterday has ended, but less than publishDelayMs ago: not published yet.
    const first = await gw.deps.rankings.rollup.run();
    early = {
      published: first.published.days,
      answer: (await getRankings(gw.app, orgs[0]!.secret, { start_date: '2026-05-11', end_date: '2026-05-11' })).body
        .data,
    };
    now = NOW;
    await gw.deps.rankings.rollup.run();
  });
  afterAll(async () => {
    await db.close();
  });

  test('a model is named on a day only when at least 3 organizations used it; the rest is other', async () => {
    const res = await getRankings(gw.app, orgs[0]!.secret, { start_date: '2026-05-04', end_date: '2026-05-05' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { date: '2026-05-04', model_permaslug: 'v/a', total_tokens: '300' },
      { date: '2026-05-04', model_permaslug: 'v/c', total_tokens: '40' },
      { date: '2026-05-04', model_permaslug: 'other', total_tokens: '1000' },
      { date: '2026-05-05', model_permaslug: 'other', total_tokens: '10001' },
    ]);
  });

  test('the threshold applies per day before a week is summed, and every tenant gets the same answer', async () => {
    const answers = await Promise.all(
      orgs.map((o) =>
        getRankings(gw.app, o.secret, { start_date: '2026-05-04', end_date: '2026-05-05', period: 'week' }),
      ),
    );
    for (const res of answers) {
      expect(res.body.data).toEqual([
        { date: '2026-05-04', model_permaslug: 'v/a', total_tokens: '300' },
        { date: '2026-05-04', model_permaslug: 'v/c', total_tokens: '40' },
        { date: '2026-05-04', model_permaslug: 'other', total_tokens: '11001' },
      ]);
    }
  });

  test('the threshold is counted within the filtered dataset', async () => {
    const res = await getRankings(gw.app, orgs[1]!.secret, {
      start_date: '2026-05-05',
      end_date: '2026-05-05',
      context_bucket: '10K',
    });
    // 10,000 prompt tokens from one organization: in the 10K bucket, never named (1 organization).
    expect(res.body.data).toEqual([{ date: '2026-05-05', model_permaslug: 'other', total_tokens: '10000' }]);
    const day = { start_date: '2026-05-08', end_date: '2026-05-08' };
    const h = [{ date: '2026-05-08', model_permaslug: 'v/h', total_tokens: '60' }];
    expect(
      (await getRankings(gw.app, orgs[1]!.secret, { ...day, modality: 'tool_calling', context_bucket: '1K' })).body
        .data,
    ).toEqual(h);
    expect((await getRankings(gw.app, orgs[1]!.secret, { ...day, modality: 'text' })).body.data).toEqual(h);
    expect((await getRankings(gw.app, orgs[1]!.secret, { ...day, modality: 'image' })).body.data).toEqual([]);
    expect((await getRankings(gw.app, orgs[1]!.secret, { ...day, context_bucket: '10K' })).body.data).toEqual([]);
  });

  test('dominance: a model one organization sends more than maxOrgShare of is not named, however many others use it', async () => {
    const res = await getRankings(gw.app, orgs[2]!.secret, { start_date: '2026-05-06', end_date: '2026-05-06' });
    expect(res.body.data).toEqual([
      { date: '2026-05-06', model_permaslug: 'v/e', total_tokens: '150' },
      { date: '2026-05-06', model_permaslug: 'other', total_tokens: '120' },
    ]);
  });

  test('each organization counts at most clampTokens per model per day', async () => {
    const res = await getRankings(gw.app, orgs[3]!.secret, { start_date: '2026-05-07', end_date: '2026-05-07' });
    expect(res.body.data).toEqual([{ date: '2026-05-07', model_permaslug: 'v/f', total_tokens: '40000' }]);
  });

  test('only completed days are published, publishDelayMs after they end; today never', async () => {
    expect(early.published).not.toContain('2026-05-11');
    expect(early.answer).toEqual([]);
    const res = await getRankings(gw.app, orgs[0]!.secret, { start_date: '2026-05-11', end_date: '2026-05-12' });
    expect(res.body.data).toEqual([{ date: '2026-05-11', model_permaslug: 'v/g', total_tokens: '21' }]);
  });

  test('the sampled datasets are published per completed week, with the same rules', async () => {
    const res = await getRankings(gw.app, orgs[0]!.secret, {
      category: 'legal',
      start_date: '2026-05-04',
      end_date: '2026-05-12',
    });
    // Upsampled by the weight 10; the week of 2026-05-11 is not over, so not published.
    expect(res.body.data).toEqual([
      { date: '2026-05-04', model_permaslug: 'v/a', total_tokens: '300' },
      { date: '2026-05-04', model_permaslug: 'other', total_tokens: '40' },
    ]);
  });
});

describe.each(KVS)('rankings limits with $name kv', (kvKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;

  beforeAll(async () => {
    db = await DATABASES[0]!.open();
    kv = await kvKind.open();
    gw = await createTestGateway(db, kv, { rankings: { perKeyPerMinute: 2, perOrgPerDay: 3 } }, () => NOW);
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  test('per key per minute, then per organization per day, each a 429 with Retry-After and X-RateLimit-*; another organization is not affected', async () => {
    const a = await createInferenceKey(gw);
    const b = await createInferenceKey(gw);
    for (let i = 0; i < 2; i++) expect((await getRankings(gw.app, a.secret)).status).toBe(200);
    const perKey = await getRankings(gw.app, a.secret);
    expect(perKey.status).toBe(429);
    expect(perKey.body.error).toMatchObject({
      code: 429,
      message: 'Rate limit exceeded',
      metadata: { headers: { 'X-RateLimit-Limit': '2', 'X-RateLimit-Remaining': '0' } },
    });
    expect(Number(perKey.headers['retry-after'])).toBeGreaterThan(0);
    expect(perKey.headers['x-ratelimit-limit']).toBe('2');
    expect(Number(perKey.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now());
    // Key b has its own minute, but the organization has used 2 of its 3 for the day (the refused hit is not counted).
    expect((await getRankings(gw.app, b.secret)).status).toBe(200);
    const perOrg = await getRankings(gw.app, b.secret);
    expect(perOrg.status).toBe(429);
    expect(perOrg.headers['x-ratelimit-limit']).toBe('3');
    expect(Number(perOrg.headers['retry-after'])).toBeGreaterThan(60);
    // Another organization: its own limits.
    const other = await db.transaction((tx) => provisionOrg(tx, 'Other'));
    expect((await getRankings(gw.app, other.secret)).status).toBe(200);
  });
});
