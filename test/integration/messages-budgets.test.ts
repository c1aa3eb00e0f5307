/**
 * The Messages door against budgets: twenty concurrent agent-sized requests (40–200 KB bodies:
 * a long history and big tool schemas, as Claude Code sends) on a tiny workspace budget, whole
 * and streamed, to an Anthropic-format upstream (pass-through) and an OpenAI-format one
 * (canonical): each reservation is bound by `max_tokens`, nothing spends past the budget, and
 * every answered request has exactly one record with the cost its answer showed.
 */
import request from 'supertest';
import { DATABASES, KVS } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import { listenApp } from '../helpers/listening';
import { startFakeFleet, type FakeFleet } from '../fakes/providers';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

const BUDGET = 0.3;

/** An agent's request of about `kb` KB: tools with long schemas, then a long history. */
function agentBody(model: string, kb: number, stream: boolean): Record<string, unknown> {
  const prose = (n: number) => 'read the file and fix the failing test please '.repeat(n);
  const tools = Array.from({ length: 20 }, (_, i) => ({
    name: `tool_${i}`,
    description: prose(20),
    input_schema: { type: 'object', properties: { path: { type: 'string', description: prose(5) } } },
  }));
  const messages: Array<Record<string, unknown>> = [];
  let size = JSON.stringify(tools).length;
  for (let i = 0; size < kb * 1024; i++) {
    const turn = i % 2 === 0 ? { role: 'user', content: prose(40) } : { role: 'assistant', content: prose(40) };
    messages.push(turn);
    size += JSON.stringify(turn).length;
  }
  if (messages.at(-1)!.role === 'assistant') messages.push({ role: 'user', content: 'go on' });
  return { model, max_tokens: 200, stream, system: 'You are an agent.', tools, messages };
}

describe.each(DATABASES.flatMap((db) => KVS.map((kv) => [db.name, kv.name, db, kv] as const)))(
  'Messages spend on a tiny budget (%s, %s)',
  (_db, _kv, dbKind, kvKind) => {
    let db: Database;
    let kv: Kv;
    let fleet: FakeFleet;
    let gw: TestGateway;
    let url: string;
    let close: () => Promise<void>;

    beforeAll(async () => {
      db = await dbKind.open();
      kv = await kvKind.open();
      fleet = await startFakeFleet();
      gw = await createTestGateway(db, kv, {
        ...fleet.overrides,
        chat: { attemptTimeoutMs: 15_000, deadlineMs: 20_000 },
      });
      const listening = await listenApp(gw.app);
      url = `${listening.baseUrl}/messages`;
      close = () => listening.close();
    });
    afterAll(async () => {
      await close();
      await gw.deps.chat.drain();
      await gw.deps.routing.close();
      await gw.deps.recorder.close();
      await fleet.closeAll();
      await kv.close();
      await db.close();
    });

    /** A new workspace with `budget` as its daily budget and one inference key. */
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
    async function ask(secret: string, body: Record<string, unknown>) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'x-api-key': secret, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status !== 200) return { status: res.status, type: (JSON.parse(text) as { type?: string }).type };
      if (body.stream !== true) {
        const answer = JSON.parse(text) as { id: string; usage: { cost: number } };
        return { status: 200, id: answer.id, cost: answer.usage.cost };
      }
      const events = text.split('\n\n').filter((e) => e.includes('data: {'));
      const data = events.map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)) as Record<string, unknown>);
      const start = data[0] as { message: { id: string } };
      const delta = data.find((d) => d.type === 'message_delta') as { usage: { cost: number } } | undefined;
      return { status: 200, id: start.message.id, cost: delta?.usage.cost };
    }

    test.each([
      ['claude-sonnet-4-5', false],
      ['claude-sonnet-4-5', true],
      ['openai/gpt-4o', true],
    ] as const)('20 concurrent agent-sized requests to %s (stream: %s)', async (model, stream) => {
      const ws = await workspace(BUDGET);
      const bodies = Array.from({ length: 20 }, (_, i) => agentBody(model, 40 + i * 8, stream));
      const results = await Promise.all(bodies.map((b) => ask(ws.secret, b)));
      const answered = results.filter((r) => r.status === 200);
      expect(answered.length).toBeGreaterThan(0);
      expect(results.filter((r) => r.status !== 200)).toEqual(
        results.filter((r) => r.status === 402).map(() => ({ status: 402, type: 'error' })),
      );
      expect(results.some((r) => r.status === 402)).toBe(true);
      await gw.deps.chat.drain();
      await gw.deps.recorder.flush();
      const rows = await db.query<{ id: string; cost_usd: number; api_type: string }>(
        'SELECT id, cost_usd, api_type FROM generations WHERE workspace_id = $1',
        [ws.id],
      );
      expect(rows).toHaveLength(answered.length);
      expect(new Set(rows.map((r) => r.api_type))).toEqual(new Set(['messages']));
      const recorded = new Map(rows.map((r) => [r.id, Number(r.cost_usd)]));
      for (const a of answered) expect(recorded.get(a.id!)).toBe(a.cost);
      const spent = rows.reduce((sum, r) => sum + Number(r.cost_usd), 0);
      expect(spent).toBeLessThanOrEqual(BUDGET);
      expect(spent).toBeGreaterThan(0);
    });
  },
);
