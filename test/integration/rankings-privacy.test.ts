/**
 * The installation-wide rankings against the two attacks of issue #43 item 3, black-box: several
 * organizations send embeddings requests through a fake upstream, the rollup runs through its
 * trigger, the injected clock completes UTC days, and an attacker reads the dataset with its own
 * key. Differencing (read, let the victim send, read again) and collusion (two organizations
 * lift the victim's model over the organization threshold, then subtract their own tokens) must
 * no longer give the victim's exact count, and a published day must never change. The
 * organization scope still shows an organization its own numbers exactly.
 */
import request from 'supertest';
import { bearer, createInferenceKey, gatewayApp } from '../helpers/gateway';
import { getRankings } from '../helpers/rankings';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { provisionOrg } from '../../src/orgs/provision';
import { closeRankings } from '../../src/datasets';
import type { RankingRow } from '../../src/datasets/types';

const SHARED = 'openai/text-embedding-3-small';
const VICTIMS = 'openai/text-embedding-3-large';
/** 38 characters: the fake upstream reports 38 tokens for it. */
const TEXT = 'quarterly revenue summary for the team';

describe('installation-wide rankings resist differencing and collusion (PGlite, HTTP)', () => {
  let h: GatewayHarness;
  /** Secrets of inference keys: attacker A, victim V, colluders C1 and C2, bystander D. */
  const keys: Record<'A' | 'V' | 'C1' | 'C2' | 'D', string> = { A: '', V: '', C1: '', C2: '', D: '' };

  beforeAll(async () => {
    h = await startGatewayHarness({ overrides: { rankings: { scope: 'installation', minOrganizations: 3 } } });
    for (const name of Object.keys(keys) as Array<keyof typeof keys>) {
      const org = await h.db.transaction((tx) => provisionOrg(tx, `Org ${name}`));
      keys[name] = (await createInferenceKey({ app: h.gw.app, mgmtKey: org.secret })).secret;
    }
  });
  afterAll(async () => {
    await closeRankings(h.gw.deps.rankings);
    await h.close();
  });

  /** `n` embeddings requests of 38 tokens each to `model` as `who`, at the clock's time. */
  async function send(who: keyof typeof keys, model: string, n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const res = await request(h.gw.app)
        .post('/api/v1/embeddings')
        .set('Authorization', bearer(keys[who]))
        .send({ model, input: TEXT });
      expect(res.status).toBe(200);
    }
  }

  async function rollup(): Promise<void> {
    await h.gw.deps.recorder.flush();
    await h.gw.deps.rankings.rollup.run();
  }

  async function read(who: keyof typeof keys, day: string): Promise<RankingRow[]> {
    const res = await getRankings(h.gw.app, keys[who], { start_date: day, end_date: day });
    expect(res.status).toBe(200);
    return res.body.data as RankingRow[];
  }

  /**
   * On 2026-11-`date` the victim sends 7 requests to its model and each colluder `each`; once the
   * day is published, a colluder reads it.
   */
  async function collude(date: number, each: number): Promise<RankingRow[]> {
    h.clock.now = Date.UTC(2026, 10, date, 12);
    await send('V', VICTIMS, 7);
    await send('C1', VICTIMS, each);
    await send('C2', VICTIMS, each);
    h.clock.now = Date.UTC(2026, 10, date + 1, 6);
    await rollup();
    return read('C1', `2026-11-${String(date).padStart(2, '0')}`);
  }

  const tokensOf = (rows: RankingRow[], slug: string): number =>
    Number(rows.find((r) => r.model_permaslug === slug)?.total_tokens ?? 0);

  test("differencing today: another organization's requests move nothing the attacker can read (today is not published)", async () => {
    h.clock.now = Date.UTC(2026, 10, 3, 10); // 2026-11-03
    await send('A', SHARED, 1);
    await send('D', SHARED, 1);
    await send('C1', SHARED, 1);
    await rollup();
    const before = await read('A', '2026-11-03');
    await send('V', VICTIMS, 7); // 266 tokens, a model nobody else uses
    await rollup();
    const after = await read('A', '2026-11-03');
    expect(tokensOf(after, 'other') - tokensOf(before, 'other')).not.toBe(266);
    expect(after).toEqual([]);

    // The organization scope is unchanged: the victim sees its own figures, today, exactly.
    const own = await gatewayApp(h.db, h.kv, { rankings: { scope: 'organization' } }, () => h.clock.now);
    const mine = await getRankings(own.app, keys.V, { start_date: '2026-11-03', end_date: '2026-11-03' });
    expect(mine.body.data).toEqual([{ date: '2026-11-03', model_permaslug: VICTIMS, total_tokens: '266' }]);
  });

  test('a completed day is published once, noisy: re-queries are identical and late records change nothing', async () => {
    h.clock.now = Date.UTC(2026, 10, 5, 12); // 2026-11-05
    await send('V', VICTIMS, 7);
    await rollup();
    h.clock.now = Date.UTC(2026, 10, 6, 6); // the day is complete and past the publication delay
    await rollup();
    const published = await read('A', '2026-11-05');
    // The victim's 266 tokens are all of the day's `other`: the published figure is not them.
    expect(tokensOf(published, 'other')).not.toBe(266);
    expect(published.some((r) => r.model_permaslug === VICTIMS)).toBe(false);
    for (let i = 0; i < 3; i++) expect(await read('D', '2026-11-05')).toEqual(published);

    // Records for the published day written late (the clock set back: an outbox drained after an
    // outage) are rolled up for the organization scope but never move the published day.
    h.clock.now = Date.UTC(2026, 10, 5, 23, 30);
    await send('V', VICTIMS, 5);
    h.clock.now = Date.UTC(2026, 10, 6, 7);
    await rollup();
    expect(await read('A', '2026-11-05')).toEqual(published);
    const own = await gatewayApp(h.db, h.kv, { rankings: { scope: 'organization' } }, () => h.clock.now);
    const mine = await getRankings(own.app, keys.V, { start_date: '2026-11-05', end_date: '2026-11-05' });
    expect(mine.body.data).toEqual([{ date: '2026-11-05', model_permaslug: VICTIMS, total_tokens: String(12 * 38) }]);
  });

  test("collusion with one request each: the victim's model is hidden (it dominates), and nothing subtracts to its count", async () => {
    const rows = await collude(9, 1);
    // Three organizations, but the victim sent 266 of 342 tokens: never named.
    expect(rows.some((r) => r.model_permaslug === VICTIMS)).toBe(false);
    expect(tokensOf(rows, VICTIMS) - 38 - 38).not.toBe(266);
    expect(tokensOf(rows, 'other') - 38 - 38).not.toBe(266);
  });

  test("collusion that avoids dominance: the model is named, but its published tokens less the colluders' are not the victim's", async () => {
    const rows = await collude(11, 7);
    const named = rows.find((r) => r.model_permaslug === VICTIMS);
    // Shown or not (a negative noisy total is not shown), it does not give the victim's 266.
    expect(Number(named?.total_tokens ?? 0) - 266 - 266).not.toBe(266);
    expect(rows.map((r) => r.total_tokens)).not.toContain('798');
  });
});
