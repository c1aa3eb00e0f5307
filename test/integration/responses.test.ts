/**
 * POST /responses (the Responses door) over a real loopback socket: the schema (unknown fields
 * accepted, bad input a clear 400, the stateless refusals), the SSE events (`event:` named as
 * their `type`, increasing `sequence_number`, `response.completed` with usage and cost), the
 * records (`api_type` `responses`), `response.failed` after the first content, fallback before it,
 * a client that leaves, hosted tools left out and named, and Codex's captured requests, all
 * translated to chat completions (OpenAI's fake is told it has no `/responses`).
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { until } from '../helpers/eventually';
import { bearer } from '../helpers/gateway';

const MINI = 'openai/gpt-4.1-mini';
const SONNET = 'anthropic/claude-sonnet-4';
const LLAMA = 'meta-llama/llama-3.3-70b-instruct';

/** A response object or output item as the tests read it. */
interface Obj {
  [k: string]: unknown;
  output: Array<Record<string, unknown>>;
  usage: { cost: number; [k: string]: unknown };
}
interface Event {
  event: string;
  data: { type: string; sequence_number: number; delta?: string; response?: Obj; [k: string]: unknown };
}
/** An upstream chat message as sent. */
interface Sent {
  role: string;
  tool_call_id?: string;
  tool_calls?: Array<{ id: string; function: { name: string } }>;
}
interface Streamed {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: Event[];
  /** The body when the answer was not a stream. */
  text: string;
}

/** A Codex request captured by test/agents (its model named by its catalog id: bare names are the catalog's aliases). */
function codexBody(file: string): Record<string, unknown> {
  const fixture = JSON.parse(readFileSync(path.join(__dirname, '../fixtures/agents', file), 'utf8')) as {
    body: Record<string, unknown>;
  };
  return { ...fixture.body, model: 'openai/gpt-4.1' };
}

describe('POST /responses', () => {
  let h: GatewayHarness;
  let url: URL;
  beforeAll(async () => {
    // The door's own translation: OpenAI's fake is told it has no `/responses`, so the door writes
    // chat completions for it (the pass-through: responses-pass-through.test.ts).
    h = await startGatewayHarness({
      listen: true,
      providerExtras: { OPENAI: { responses: false } },
      overrides: {
        chat: { attemptTimeoutMs: 400, deadlineMs: 3000, keepAliveMs: 50 },
        breaker: { failureThreshold: 1000 },
      },
    });
    url = new URL(`${h.baseUrl}/responses`);
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.fleet.resetAll();
    h.events.length = 0;
  });

  const post = (body: unknown) =>
    request(h.gw.app)
      .post('/api/v1/responses')
      .set('Authorization', bearer(h.key))
      .send(body as object);

  /** A streamed request; resolves with its events once the response ends. */
  function stream(
    body: Record<string, unknown>,
    onEvent?: (e: Event, req: http.ClientRequest) => void,
  ): Promise<Streamed> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        url,
        { method: 'POST', headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' } },
        (res) => {
          const events: Event[] = [];
          let buffer = '';
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
            buffer += chunk;
            let at: number;
            while ((at = buffer.indexOf('\n\n')) !== -1) {
              const raw = buffer.slice(0, at);
              buffer = buffer.slice(at + 2);
              if (raw.startsWith(':')) continue;
              const lines = raw.split('\n');
              const name = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? '';
              const data = lines.find((l) => l.startsWith('data: '))?.slice(6) ?? 'null';
              const e = { event: name, data: JSON.parse(data) as Event['data'] };
              events.push(e);
              onEvent?.(e, req);
            }
          });
          const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, events, text });
          res.on('end', done);
          res.on('close', done);
        },
      );
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end(JSON.stringify({ model: MINI, input: 'hello there my friend', stream: true, ...body }));
    });
  }

  const types = (s: Streamed) => s.events.map((e) => e.data.type);
  const textOf = (s: Streamed) =>
    s.events
      .filter((e) => e.data.type === 'response.output_text.delta')
      .map((e) => e.data.delta)
      .join('');

  describe('the schema', () => {
    test('unknown top-level fields, store: true and Codex-style extras are accepted (nothing is stored)', async () => {
      const res = await post({
        model: MINI,
        input: 'hi',
        store: true,
        some_future_field: { x: 1 },
        client_metadata: { a: 'b' },
        prompt_cache_key: 'k',
        include: ['reasoning.encrypted_content'],
        text: { verbosity: 'low' },
        truncation: 'auto',
        service_tier: 'auto',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ object: 'response', status: 'completed', store: false });
    });

    test.each([
      ['input is a number', { input: 42 }, 'body.input'],
      ['an item of an unknown type', { input: [{ type: 'telepathy', call_id: 'x' }] }, 'body.input.0.type'],
      ['a function tool without a name', { input: 'x', tools: [{ type: 'function' }] }, "required property 'name'"],
      ['a message with a bad role', { input: [{ role: 'wizard', content: 'x' }] }, 'body.input.0'],
      ['max_output_tokens 0', { input: 'x', max_output_tokens: 0 }, 'body.max_output_tokens'],
      ['no input', { instructions: 'be brief' }, 'body.input'],
      ['only developer messages', { input: [{ role: 'developer', content: 'rules' }] }, 'body.input'],
    ])('%s → a 400 naming where', async (_name, body, where) => {
      const res = await post({ model: MINI, ...body });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400, message: expect.any(String) });
      expect(JSON.stringify(res.body.error.metadata)).toContain(where);
      expect(h.events).toHaveLength(0);
    });

    test.each([
      ['previous_response_id', { previous_response_id: 'resp_123' }, 'whole conversation'],
      ['conversation', { conversation: 'conv_1' }, 'whole conversation'],
      ['background: true', { background: true }, 'stateless'],
    ])('%s → 400 saying what to send instead', async (_name, extra, says) => {
      const res = await post({ model: MINI, input: 'x', ...extra });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain(says);
      expect(h.fleet.fakes.openai!.calls).toHaveLength(0);
    });

    test('previous_response_id: null is no reference and passes', async () => {
      expect((await post({ model: MINI, input: 'x', previous_response_id: null })).status).toBe(200);
    });
  });

  test('a base URL without /api (POST /v1/responses) is a 404 naming the route meant', async () => {
    const res = await request(h.gw.app).post('/v1/responses').set('Authorization', bearer(h.key)).send({});
    expect(res.status).toBe(404);
    expect(res.body.error.message).toMatch(/the API is under \/api\/v1: POST \/api\/v1\/responses$/);
  });

  test('a whole answer cut by max_output_tokens is incomplete (reason max_output_tokens)', async () => {
    const res = await post({ model: MINI, input: 'one two three four five', max_output_tokens: 2 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(res.headers['x-generation-id']).toBe(res.body.id.replace(/^resp_/, ''));
    expect(h.fleet.fakes.openai!.calls[0]!.body.max_completion_tokens).toBe(2);
  });

  test('events: named as their type, sequence numbers 0,1,2…, response.completed with usage and cost, one record', async () => {
    const s = await stream({});
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toMatch(/^text\/event-stream/);
    for (const e of s.events) expect(e.event).toBe(e.data.type);
    expect(s.events.map((e) => e.data.sequence_number)).toEqual(s.events.map((_e, i) => i));
    expect(types(s)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...Array(5).fill('response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(textOf(s)).toBe('echo: hello there my friend');
    const done = s.events.at(-1)!.data.response!;
    const id = s.headers['x-generation-id'] as string;
    expect(done).toMatchObject({ id: `resp_${id}`, status: 'completed', model: MINI });
    expect(done.output).toMatchObject([{ type: 'message', content: [{ text: 'echo: hello there my friend' }] }]);
    expect(done.usage).toMatchObject({ input_tokens: 4, output_tokens: 5, total_tokens: 9 });
    expect(done.usage.cost).toBeCloseTo(4 * 0.4e-6 + 5 * 1.6e-6, 12);
    await until('the usage record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({
      id,
      apiType: 'responses',
      streamed: true,
      status: 'ok',
      costUsd: done.usage.cost,
    });
    await h.gw.deps.recorder.flush();
    const gen = await request(h.gw.app).get(`/api/v1/generation?id=${id}`).set('Authorization', bearer(h.key));
    expect(gen.body.data).toMatchObject({ id, model: MINI, streamed: true });
  });

  test('an upstream error after the first content → response.failed with error {code, message}; recorded', async () => {
    h.fleet.fakes.openai!.setSticky({ errorAfterEvents: 3 });
    const s = await stream({});
    expect(s.status).toBe(200);
    const last = s.events.at(-1)!.data;
    expect(last.type).toBe('response.failed');
    expect(last.response).toMatchObject({
      status: 'failed',
      error: { code: expect.any(String), message: expect.any(String) },
    });
    expect(s.events.map((e) => e.data.sequence_number)).toEqual(s.events.map((_e, i) => i));
    await until('the usage record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({ apiType: 'responses', status: 'error', finishReason: 'error' });
    expect(h.events[0]!.tokensCompletion).toBeGreaterThan(0);
  });

  test.each([
    ['a 500', { status: 500 }],
    ['an error event before the first content', { errorAfterEvents: 1 }],
  ])('%s before the first content → falls back; the client sees one clean stream', async (_name, fault) => {
    h.fleet.fakes.deepinfra!.setSticky(fault);
    const s = await stream({ model: LLAMA });
    expect(textOf(s)).toBe('echo: hello there my friend');
    expect(types(s).filter((t) => t === 'response.created')).toHaveLength(1);
    expect(s.events.map((e) => e.data.sequence_number)).toEqual(s.events.map((_e, i) => i));
    expect(s.events.at(-1)!.data.response).toMatchObject({ status: 'completed', provider: 'Groq' });
  });

  test('fallback across formats (models): the OpenAI-format upstreams fail, the Anthropic one answers', async () => {
    h.fleet.fakes.openai!.setSticky({ status: 503 });
    h.fleet.fakes.azure!.setSticky({ status: 503 });
    const s = await stream({ models: [SONNET] });
    expect(textOf(s)).toBe('echo: hello there my friend');
    expect(s.events.at(-1)!.data.response).toMatchObject({ status: 'completed', model: SONNET, provider: 'Anthropic' });
  });

  test('every attempt fails after the 200 went out → response.created then response.failed', async () => {
    for (const p of ['deepinfra', 'groq', 'together', 'fireworks'] as const)
      h.fleet.fakes[p]!.setSticky({ hang: true });
    const s = await stream({ model: LLAMA });
    // Keep-alives opened the stream before the deadline, or nothing was sent and the envelope came.
    if (s.status === 200) {
      expect(types(s)).toEqual(['response.created', 'response.in_progress', 'response.failed']);
      expect(s.events.at(-1)!.data.response).toMatchObject({ status: 'failed', error: { code: expect.any(String) } });
    } else expect(JSON.parse(s.text)).toMatchObject({ error: { code: s.status } });
    expect(h.events).toHaveLength(0);
  });

  test('a client that leaves mid-stream: the upstream call is aborted, the partial answer is recorded', async () => {
    let release: (() => void) | undefined;
    const gate = new Promise<void>((r) => (release = r));
    h.fleet.fakes.openai!.setSticky({ beforeEvent: (i) => (i < 3 ? Promise.resolve() : gate) });
    let deltas = 0;
    await stream({}, (e, req) => {
      if (e.data.type === 'response.output_text.delta' && ++deltas === 1) req.destroy();
    });
    const { aborted } = await h.fleet.fakes.openai!.calls[0]!.ended;
    release?.();
    expect(aborted).toBe(true);
    await until('the usage record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({
      apiType: 'responses',
      streamed: true,
      nativeFinishReason: 'client_disconnected',
      usageEstimated: true,
    });
    expect(h.events[0]!.tokensCompletion).toBeGreaterThan(0);
  });

  test('hosted tools are left out and named in X-Switchyard-Tools-Left-Out; function tools go out', async () => {
    const tools = [
      { type: 'web_search' },
      { type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } },
      { type: 'tool_search' },
      { type: 'web_search', search_context_size: 'low' },
    ];
    const res = await post({ model: MINI, input: 'find it', tools });
    expect(res.status).toBe(200);
    expect(res.headers['x-switchyard-tools-left-out']).toBe('web_search, tool_search');
    const sent = h.fleet.fakes.openai!.calls[0]!.body.tools as Array<{ function: { name: string } }>;
    expect(sent.map((t) => t.function.name)).toEqual(['lookup']);
    expect(res.body.output[0]).toMatchObject({ type: 'function_call', name: 'lookup' });
  });

  test('only hosted tools: none go out, and tool_choice is not sent without tools', async () => {
    const res = await post({ model: MINI, input: 'x', tools: [{ type: 'web_search' }], tool_choice: 'auto' });
    expect(res.status).toBe(200);
    expect(h.fleet.fakes.openai!.calls[0]!.body.tools).toBeUndefined();
    expect(h.fleet.fakes.openai!.calls[0]!.body.tool_choice).toBeUndefined();
  });

  test.each([
    ['gpt-5.5', 'openai/gpt-5.5'],
    ['gpt-4.1', 'openai/gpt-4.1'],
  ])("Codex's model name %s resolves to %s", async (name, id) => {
    const res = await post({ model: name, input: 'hello' });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe(id);
  });

  test("Codex's first turn (captured): accepted, answered 200 through the door, namespaced tools flattened", async () => {
    const s = await stream(codexBody('codex-first-turn.json'));
    expect(s.status).toBe(200);
    expect(s.headers['x-switchyard-tools-left-out']).toBe('web_search');
    expect(s.events.at(-1)!.data.type).toBe('response.completed');
    const sent = h.fleet.fakes.openai!.calls[0]!.body;
    const names = (sent.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(names).toContain('exec_command');
    expect(names).toContain('multi_agent_v1__close_agent');
    // The developer messages stay developer messages, in order, before the user's.
    const roles = (sent.messages as Array<{ role: string }>).map((m) => m.role);
    expect(roles).toEqual(['developer', 'developer', 'user', 'user']);
    // The model calls the first tool: a function_call item, as Codex expects.
    expect(s.events.at(-1)!.data.response!.output[0]).toMatchObject({ type: 'function_call', name: 'exec_command' });
    await until('the usage record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({ apiType: 'responses', streamed: true });
  });

  test("Codex's tool-result turn (captured): the call and its output reach the upstream paired by call id", async () => {
    const s = await stream(codexBody('codex-tool-result-turn.json'));
    expect(s.status).toBe(200);
    const messages = h.fleet.fakes.openai!.calls[0]!.body.messages as Sent[];
    const call = messages.find((m) => m.role === 'assistant');
    expect(call?.tool_calls?.[0]).toMatchObject({ id: 'call_agent_1', function: { name: 'exec_command' } });
    expect(messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_agent_1' });
    expect(textOf(s)).toContain('capture marker');
  });

  test('a namespaced call comes back as function_call with its namespace, and goes out again joined', async () => {
    const tools = [
      {
        type: 'namespace',
        name: 'crm',
        description: 'CRM tools',
        tools: [{ type: 'function', name: 'find', parameters: { type: 'object' } }],
      },
    ];
    const res = await post({ model: SONNET, input: 'find Ada', tools });
    expect(res.body.output[0]).toMatchObject({ type: 'function_call', name: 'find', namespace: 'crm' });
    const call = res.body.output[0];
    const second = await post({
      model: MINI,
      tools,
      input: ['find Ada', call, { type: 'function_call_output', call_id: call.call_id, output: 'found' }].map((i) =>
        typeof i === 'string' ? { role: 'user', content: i } : i,
      ),
    });
    expect(second.body.output[0].content[0].text).toBe('result: found');
    const sent = h.fleet.fakes.openai!.calls[0]!.body.messages as Sent[];
    expect(sent[1]!.tool_calls![0]!.function.name).toBe('crm__find');
  });
});
