/**
 * The Responses door against budgets on Redis and Postgres: twenty concurrent agent-sized requests
 * (40–200 KB bodies, as Codex sends: developer instructions, tools, history), whole and streamed, on
 * a tiny budget never spend past it, the reservation bound by `max_output_tokens`, and every
 * answered request has exactly one record (`api_type` `responses`) with the cost its answer showed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import {
  DATABASE_URL,
  REDIS_URL,
  deleteRedisPrefix,
  describeIf,
  openTestPostgres,
  openTestRedisKv,
} from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import { startFakeFleet, type FakeFleet } from '../fakes/providers';
import type { Database } from '../../src/store/db';
import type { RedisKv } from '../../src/kv/redis';

const LLAMA = 'meta-llama/llama-3.3-70b-instruct';
const BUDGET = 0.01;

/** An agent-sized body of about `kb` KB: long developer instructions, a tool, a short history. */
function agentBody(kb: number, stream: boolean): Record<string, unknown> {
  const instructions = 'You are a careful coding agent. '.repeat(Math.ceil((kb * 1024) / 32));
  return {
    model: LLAMA,
    stream,
    store: false,
    max_output_tokens: 20,
    provider: { only: ['deepinfra'] },
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: instructions }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello there my friend' }] },
    ],
    tools: [{ type: 'web_search' }],
    include: ['reasoning.encrypted_content'],
  };
}

describeIf(REDIS_URL && DATABASE_URL)('responses spend on a tiny budget (Redis + Postgres)', () => {
  let db: Database;
  let kv: RedisKv;
  let fleet: FakeFleet;
  let gw: TestGateway;
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    db = await openTestPostgres();
    kv = await openTestRedisKv();
    fleet = await startFakeFleet();
    gw = await createTestGateway(db, kv, {
      ...fleet.overrides,
      chat: { attemptTimeoutMs: 15_000, deadlineMs: 20_000 },
    });
    server = http.createServer(gw.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/responses`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await gw.deps.chat.drain();
    await gw.deps.routing.close();
    await gw.deps.recorder.close();
    await fleet.closeAll();
    await deleteRedisPrefix(kv.prefix);
    await kv.close();
    await db.close();
  });

  async function workspace(budget: number): Promise<{ id: string; secret: string }> {
    const slug = `ws-${Math.random().toString(36).slice(2, 10)}`;
    const mgmt = bearer(gw.mgmtKey);
    const ws = await request(gw.app).post('/api/v1/workspaces').set('Authorization', mgmt).send({ name: slug, slug });
    expect(ws.status).toBe(201);
    const put = await request(gw.app)
      .put(`/api/v1/workspaces/${slug}/budgets/daily`)
      .set('Authorization', mgmt)
      .send({ limit_usd: budget });
    expect(put.status).toBe(200);
    const { secret } = await createInferenceKey(gw, { name: 'k', workspace_id: ws.body.data.id });
    return { id: ws.body.data.id as string, secret };
  }

  /** One request; its status and, when answered, its generation id and the cost the answer showed. */
  async function ask(
    secret: string,
    kb: number,
    stream: boolean,
  ): Promise<{ status: number; id?: string; cost?: number }> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: bearer(secret), 'content-type': 'application/json' },
      body: JSON.stringify(agentBody(kb, stream)),
    });
    const text = await res.text();
    if (res.status !== 200) return { status: res.status };
    const response = stream
      ? (
          JSON.parse(
            text
              .split('\n\n')
              .filter((e) => e.startsWith('event: response.completed'))
              .at(-1)!
              .split('\ndata: ')[1]!,
          ) as { response: { id: string; usage: { cost: number } } }
        ).response
      : (JSON.parse(text) as { id: string; usage: { cost: number } });
    return { status: 200, id: response.id.replace(/^resp_/, ''), cost: response.usage.cost };
  }

  test.each([false, true])(
    '20 concurrent 40–200 KB requests (stream: %s): no overspend; each answer has one record with its cost',
    async (stream) => {
      const ws = await workspace(BUDGET);
      const sizes = Array.from({ length: 20 }, (_v, i) => 40 + Math.round((160 * i) / 19));
      const results = await Promise.all(sizes.map((kb) => ask(ws.secret, kb, stream)));
      const answered = results.filter((r) => r.status === 200);
      expect(answered.length).toBeGreaterThan(0);
      expect(results.every((r) => r.status === 200 || r.status === 402)).toBe(true);
      expect(results.some((r) => r.status === 402)).toBe(true);
      await gw.deps.chat.drain();
      await gw.deps.recorder.flush();
      const rows = await db.query<{ id: string; cost_usd: number; api_type: string }>(
        'SELECT id, cost_usd, api_type FROM generations WHERE workspace_id = $1',
        [ws.id],
      );
      expect(rows).toHaveLength(answered.length);
      expect(rows.every((r) => r.api_type === 'responses')).toBe(true);
      const recorded = new Map(rows.map((r) => [r.id, Number(r.cost_usd)]));
      for (const a of answered) expect(recorded.get(a.id!)).toBe(a.cost);
      const spent = rows.reduce((sum, r) => sum + Number(r.cost_usd), 0);
      expect(spent).toBeLessThanOrEqual(BUDGET);
      expect(spent).toBeGreaterThan(0);
    },
  );

  test('the 402 names max_output_tokens; with it set lower the same prompt fits', async () => {
    const ws = await workspace(0.0001);
    const body = { model: LLAMA, provider: { only: ['deepinfra'] }, input: 'hello' };
    const refused = await request(gw.app).post('/api/v1/responses').set('Authorization', bearer(ws.secret)).send(body);
    expect(refused.status).toBe(402);
    expect(refused.body.error.message).toMatch(/max_output_tokens/);
    const fits = await request(gw.app)
      .post('/api/v1/responses')
      .set('Authorization', bearer(ws.secret))
      .send({ ...body, max_output_tokens: 10 });
    expect(fits.status).toBe(200);
  });
});
