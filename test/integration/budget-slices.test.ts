/**
 * Completion slices (issue 60 item 4): a budgeted chat request is admitted on its prompt plus a
 * first slice of completion, and holds one more slice at a time as its answer streams. On a $1
 * budget and a model whose `max_tokens: 128000` worst case is $4: twenty concurrent turns of
 * about a cent are all served; a turn that would cost more than is left is cut as the door's
 * length stop, saying the budget ended it, and billed for what it produced; spend never passes $1
 * and nothing stays reserved. Whole and streamed, on the chat, Messages and Responses doors, over
 * an OpenAI-format upstream (for the Responses door OpenAI's own `/responses`, passed through) and
 * an Anthropic-format one; a client that leaves mid-slice leaves no hold.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { stringify as toYaml } from 'yaml';
import { bearer, createInferenceKey } from '../helpers/gateway';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { tempDir } from '../helpers/temp-dir';

const MODEL = 'test/sliced';
/** USD per completion token: 128000 of them are $4. */
const COMPLETION_USD = 31.25e-6;
const SLICE = 1024;
const BUDGET = 1;
/** The fake echoes its prompt's words, one completion token each: 319 words and `echo:` are 320 tokens, $0.01. */
const SMALL = Array.from({ length: 319 }, () => 'go').join(' ');
/** An answer of 30001 tokens: about $0.94, more than is left after the small turns. */
const BIG = Array.from({ length: 30_000 }, () => 'go').join(' ');

/** A catalog of one model on an OpenAI-format and an Anthropic-format provider, priced as above. */
function catalog(): string {
  const endpoint = (provider: string) => ({
    provider,
    upstream_model: `sliced-${provider}`,
    pricing: { prompt: '0', completion: '31.25' },
    max_completion_tokens: 128000,
  });
  const chat = {
    models: [
      {
        id: MODEL,
        name: 'Test: Sliced',
        created: 1767225600,
        context_length: 200000,
        endpoints: [endpoint('openai'), endpoint('anthropic')],
      },
    ],
  };
  const file = path.join(tempDir('sy-slices-'), 'chat-models.yaml');
  writeFileSync(file, toYaml(chat));
  return file;
}

type Door = 'chat' | 'messages' | 'responses';
type Upstream = 'openai' | 'anthropic';

/** What a turn's answer said: its status, its stop, whether it said the budget ended it, its cost. */
interface Turn {
  status: number;
  stop?: string;
  budgetStop?: boolean;
  cost?: number;
}

/** The SSE events' data objects (named or not). */
function eventsOf(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n\n')
    .map((e) => e.split('\n').find((l) => l.startsWith('data: {')))
    .filter((l): l is string => l !== undefined)
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

/** A turn's answer read the door's way. */
function readTurn(door: Door, stream: boolean, status: number, body: Record<string, unknown>, text: string): Turn {
  if (status !== 200) return { status };
  if (door === 'responses') {
    const response = stream ? (eventsOf(text).at(-1)!.response as Record<string, unknown>) : body;
    const details = response.incomplete_details as { reason: string; stopped_by?: string } | null;
    const cost = (response.usage as { cost: number }).cost;
    return {
      status,
      stop: details?.reason ?? (response.status as string),
      budgetStop: details?.stopped_by === 'budget',
      cost,
    };
  }
  if (door === 'chat' && !stream) {
    const choice = (body.choices as Array<{ finish_reason: string }>)[0]!;
    const metadata = body.metadata as { stopped_by?: string } | undefined;
    const cost = (body.usage as { cost: number }).cost;
    return { status, stop: choice.finish_reason, budgetStop: metadata?.stopped_by === 'budget', cost };
  }
  if (door === 'messages' && !stream) {
    const metadata = body.metadata as { stopped_by?: string } | undefined;
    const cost = (body.usage as { cost: number }).cost;
    return { status, stop: body.stop_reason as string, budgetStop: metadata?.stopped_by === 'budget', cost };
  }
  const events = eventsOf(text);
  if (door === 'chat') {
    const last = events.at(-1)!;
    const stops = events.flatMap((e) =>
      ((e.choices as Array<{ finish_reason: string | null }> | undefined) ?? []).map((c) => c.finish_reason),
    );
    const metadata = last.metadata as { stopped_by?: string } | undefined;
    const stop = stops.filter((s) => s !== null).at(-1) as string;
    return { status, stop, budgetStop: metadata?.stopped_by === 'budget', cost: (last.usage as { cost: number }).cost };
  }
  const delta = events.filter((e) => e.type === 'message_delta').at(-1)!;
  const metadata = delta.metadata as { stopped_by?: string } | undefined;
  const stop = (delta.delta as { stop_reason: string }).stop_reason;
  return { status, stop, budgetStop: metadata?.stopped_by === 'budget', cost: (delta.usage as { cost: number }).cost };
}

describe('completion slices on a $1 budget, a $4 worst case', () => {
  let h: GatewayHarness;

  beforeAll(async () => {
    h = await startGatewayHarness({
      overrides: {
        catalog: { chatModelsFile: catalog() },
        budgets: { sliceTokens: SLICE, leaseRequests: 0 },
        chat: { attemptTimeoutMs: 20_000, deadlineMs: 30_000 },
      },
    });
  });
  afterAll(async () => {
    await h.gw.deps.chat.drain();
    await h.close();
  });

  const mgmt = () => bearer(h.gw.mgmtKey);

  /** A new workspace with a lifetime budget of $1 and an inference key. */
  async function tenant(): Promise<{ id: string; secret: string }> {
    const slug = `ws-${Math.random().toString(36).slice(2, 10)}`;
    const ws = await request(h.gw.app)
      .post('/api/v1/workspaces')
      .set('Authorization', mgmt())
      .send({ name: slug, slug });
    expect(ws.status).toBe(201);
    await request(h.gw.app)
      .put(`/api/v1/workspaces/${slug}/budgets/lifetime`)
      .set('Authorization', mgmt())
      .send({ limit_usd: BUDGET })
      .expect(200);
    const { secret } = await createInferenceKey(h.gw, { name: 'k', workspace_id: ws.body.data.id });
    return { id: ws.body.data.id as string, secret };
  }

  /** The workspace's lifetime budget as the status route shows it. */
  async function budget(id: string): Promise<{ spent_usd: number; reserved_usd: number }> {
    const res = await request(h.gw.app).get(`/api/v1/workspaces/${id}/budgets`).set('Authorization', mgmt());
    expect(res.status).toBe(200);
    return (res.body.data as Array<{ spent_usd: number; reserved_usd: number }>)[0]!;
  }

  /** One turn with `max_tokens: 128000` on `upstream`, through `door`. */
  function turn(secret: string, door: Door, upstream: Upstream, stream: boolean, text: string): request.Test {
    const url = { chat: '/api/v1/chat/completions', messages: '/api/v1/messages', responses: '/api/v1/responses' }[
      door
    ];
    const common = { model: MODEL, stream, provider: { only: [upstream] } };
    const body =
      door === 'responses'
        ? { ...common, max_output_tokens: 128000, input: text }
        : { ...common, max_tokens: 128000, messages: [{ role: 'user', content: text }] };
    return request(h.gw.app).post(url).set('Authorization', bearer(secret)).send(body).buffer(true);
  }

  async function ask(secret: string, door: Door, upstream: Upstream, stream: boolean, text: string): Promise<Turn> {
    const res = await turn(secret, door, upstream, stream, text);
    return readTurn(door, stream, res.status, res.body as Record<string, unknown>, res.text);
  }

  const CASES: Array<[Door, Upstream, boolean]> = [];
  for (const door of ['chat', 'messages', 'responses'] as const)
    for (const upstream of ['openai', 'anthropic'] as const)
      for (const stream of [false, true]) CASES.push([door, upstream, stream]);

  test('a whole answer whose worst case fits is one whole upstream call, unsliced; a stream is metered all the same', async () => {
    const ws = await tenant();
    // 20000 completion tokens are $0.625 at most: that fits the $1 budget, so it is held whole.
    const send = (stream: boolean) =>
      request(h.gw.app)
        .post('/api/v1/chat/completions')
        .set('Authorization', bearer(ws.secret))
        .send({
          model: MODEL,
          max_tokens: 20000,
          stream,
          provider: { only: ['openai'] },
          messages: [{ role: 'user', content: 'hi' }],
        });
    expect((await send(false)).status).toBe(200);
    expect(h.fleet.fakes.openai!.calls.at(-1)!.body.stream).toBeUndefined();
    expect((await send(true)).status).toBe(200);
    expect(h.fleet.fakes.openai!.calls.at(-1)!.body.stream).toBe(true);
    await h.gw.deps.chat.drain();
    await h.gw.deps.recorder.flush();
    expect((await budget(ws.id)).reserved_usd).toBe(0);
  });

  test('a whole answer with logprobs or a web search, whose log probabilities and annotations assembling chunks would lose, holds its worst case: $4 on a $1 budget is a 402', async () => {
    const ws = await tenant();
    const ask = (logprobs: boolean) =>
      request(h.gw.app)
        .post('/api/v1/chat/completions')
        .set('Authorization', bearer(ws.secret))
        .send({ model: MODEL, max_tokens: 128000, logprobs, messages: [{ role: 'user', content: 'hi' }] });
    expect((await ask(true)).status).toBe(402);
    expect((await ask(false)).status).toBe(200);
    const searching = await request(h.gw.app)
      .post('/api/v1/chat/completions')
      .set('Authorization', bearer(ws.secret))
      .send({ model: MODEL, max_tokens: 128000, web_search_options: {}, messages: [{ role: 'user', content: 'hi' }] });
    expect(searching.status).toBe(402);
  });

  test.each(CASES)(
    '%s door, %s upstream, stream %s: 20 concurrent cent turns served; a dearer one cut as a length stop; spend within $1',
    async (door, upstream, stream) => {
      const ws = await tenant();
      const small = await Promise.all(Array.from({ length: 20 }, () => ask(ws.secret, door, upstream, stream, SMALL)));
      for (const t of small) {
        expect(t).toMatchObject({ status: 200, budgetStop: false });
        expect(t.stop).toBe({ chat: 'stop', messages: 'end_turn', responses: 'completed' }[door]);
        expect(t.cost).toBeCloseTo(0.01, 9);
      }
      const big = await ask(ws.secret, door, upstream, stream, BIG);
      const lengthStop = { chat: 'length', messages: 'max_tokens', responses: 'max_output_tokens' }[door];
      expect(big).toMatchObject({ status: 200, stop: lengthStop, budgetStop: true });
      expect(big.cost).toBeGreaterThan(0);
      expect(big.cost).toBeLessThan(BUDGET - 0.2);
      // A whole answer is read from the upstream as a stream too, so that it is metered.
      expect(h.fleet.fakes[upstream]!.calls.at(-1)!.body.stream).toBe(true);

      await h.gw.deps.chat.drain();
      await h.gw.deps.recorder.flush();
      const status = await budget(ws.id);
      expect(status.reserved_usd).toBe(0);
      expect(status.spent_usd).toBeLessThanOrEqual(BUDGET);
      expect(status.spent_usd).toBeCloseTo(0.2 + big.cost!, 6);
      const rows = await h.db.query<{ cost_usd: number; finish_reason: string; native_finish_reason: string }>(
        "SELECT cost_usd, finish_reason, native_finish_reason FROM generations WHERE workspace_id = $1 AND finish_reason = 'length'",
        [ws.id],
      );
      expect(rows.map((r) => [Number(r.cost_usd), r.native_finish_reason])).toEqual([[big.cost, 'budget']]);
    },
  );

  test('an upstream that reports no usage: a sliced whole answer is billed by the count, marked estimated', async () => {
    const ws = await tenant();
    h.fleet.fakes.openai!.reportUsage = false;
    try {
      const t = await ask(ws.secret, 'chat', 'openai', false, SMALL);
      expect(t).toMatchObject({ status: 200, stop: 'stop', budgetStop: false });
      expect(t.cost).toBeGreaterThan(0);
    } finally {
      h.fleet.fakes.openai!.reportUsage = true;
    }
    await h.gw.deps.chat.drain();
    await h.gw.deps.recorder.flush();
    const rows = await h.db.query<{ usage_estimated: boolean; cost_usd: number }>(
      'SELECT usage_estimated, cost_usd FROM generations WHERE workspace_id = $1',
      [ws.id],
    );
    expect(rows.map((r) => r.usage_estimated)).toEqual([true]);
    expect((await budget(ws.id)).spent_usd).toBeCloseTo(Number(rows[0]!.cost_usd), 9);
  });

  test.each([
    ['chat', 'openai'],
    ['chat', 'anthropic'],
    ['responses', 'openai'],
  ] as const)(
    'a client that leaves mid-slice (%s door, %s upstream) leaves no reservation behind',
    async (door, upstream) => {
      const ws = await tenant();
      // Events are written as the test releases them: enough for the hold to grow past its first slice, then none.
      let release: () => void = () => undefined;
      const blocked = new Promise<void>((resolve) => (release = resolve));
      const fake = h.fleet.fakes[upstream]!;
      fake.queue({ beforeEvent: (i) => (i < 900 ? Promise.resolve() : blocked) });
      const sent = turn(ws.secret, door, upstream, true, BIG);
      const client = sent.then(
        () => undefined,
        () => undefined,
      );
      // Wait until more than the first slice is held: the answer is in its later slices.
      const firstSlice = SLICE * COMPLETION_USD;
      for (;;) {
        const b = await budget(ws.id);
        if (b.reserved_usd > firstSlice * 1.5) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      sent.abort();
      await client;
      const call = fake.calls.at(-1)!;
      expect(await call.ended).toEqual({ aborted: true });
      release();
      await h.gw.deps.chat.drain();
      await h.gw.deps.recorder.flush();
      const after = await budget(ws.id);
      expect(after.reserved_usd).toBe(0);
      const rows = await h.db.query<{ cost_usd: number }>('SELECT cost_usd FROM generations WHERE workspace_id = $1', [
        ws.id,
      ]);
      expect(after.spent_usd).toBeCloseTo(
        rows.reduce((s, r) => s + Number(r.cost_usd), 0),
        9,
      );
      expect(after.spent_usd).toBeLessThan(firstSlice * 10);
    },
  );
});
