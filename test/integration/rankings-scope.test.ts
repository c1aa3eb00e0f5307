/**
 * The rankings dataset's scope and limits through HTTP: the installation scope (a model named on
 * a day only when enough organizations used it that day, else in `other`; the same answer for
 * every tenant), and the route's limits: per key per minute and per organization per day, with
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

describe.each(DATABASES)('installation scope on $name', (dbKind) => {
  let db: Database;
  let gw: TestGateway;
  const orgs: Array<{ id: string; secret: string }> = [];

  beforeAll(async () => {
    db = await dbKind.open();
    gw = await createTestGateway(db, new MemoryKv(), { rankings: { scope: 'installation', minOrganizations: 3 } }, () => NOW);
    for (let i = 0; i < 4; i++) {
      const o = await db.transaction((tx) => provisionOrg(tx, `Org ${i}`));
      orgs.push({ id: o.org.id, secret: o.secret });
    }
    const use = (org: number, model: string, at: string, prompt: number): RankedUse => ({ org: orgs[org]!.id, model, at, prompt });
    await insertUses(db, [
      // 2026-05-04 (Monday): A by three organizations, B by two, C by all four.
      use(0, 'v/a', '2026-05-04T01:00:00Z', 100), use(1, 'v/a', '2026-05-04T02:00:00Z', 100), use(2, 'v/a', '2026-05-04T03:00:00Z', 100),
      use(0, 'v/b', '2026-05-04T01:00:00Z', 500), use(1, 'v/b', '2026-05-04T02:00:00Z', 500),
      ...[0, 1, 2, 3].map((o) => use(o, 'v/c', '2026-05-04T05:00:00Z', 10)),
      // 2026-05-05: C by two organizations only, with many tokens from one of them.
      use(3, 'v/c', '2026-05-05T05:00:00Z', 10_000), use(2, 'v/c', '2026-05-05T05:00:00Z', 1),
    ]);
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
    const answers = await Promise.all(orgs.map((o) => getRankings(gw.app, o.secret, { start_date: '2026-05-04', end_date: '2026-05-05', period: 'week' })));
    for (const res of answers) {
      expect(res.body.data).toEqual([
        { date: '2026-05-04', model_permaslug: 'v/a', total_tokens: '300' },
        { date: '2026-05-04', model_permaslug: 'v/c', total_tokens: '40' },
        { date: '2026-05-04', model_permaslug: 'other', total_tokens: '11001' },
      ]);
    }
  });

  test('the threshold is counted within the filtered dataset', async () => {
    const res = await getRankings(gw.app, orgs[1]!.secret, { start_date: '2026-05-05', end_date: '2026-05-05', context_bucket: '10K' });
    // 10,000 prompt tokens from one organization: in the 10K bucket, never named (1 organization).
    expect(res.body.data).toEqual([{ date: '2026-05-05', model_permaslug: 'other', total_tokens: '10000' }]);
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
    expect(perKey.body.error).toMatchObject({ code: 429, message: 'Rate limit exceeded', metadata: { headers: { 'X-RateLimit-Limit': '2', 'X-RateLimit-Remaining': '0' } } });
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
