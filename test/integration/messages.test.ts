/**
 * POST /messages, Anthropic's Messages API as a front door (issue 57): the schema (open to new
 * fields and block types, bad input a 400 in Anthropic's envelope), the pass-through to an
 * Anthropic-format upstream (only the gateway's fields changed, the client's `anthropic-*` headers
 * forwarded) and the canonical path to an OpenAI-format one (Anthropic-only fields and headers
 * never sent), Anthropic's named SSE events, model aliases and dated ids, the error envelope
 * (401, 402, 404, 429, 5xx/529), records (`api_type: messages`), a client that leaves, a stream
 * that breaks, fallback before the first content, count_tokens and the Anthropic model list.
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { FAKE_SIGNATURE } from '../fakes/chat-wires';
import { bearer } from '../helpers/gateway';
import { until } from '../helpers/eventually';

const SONNET = 'anthropic/claude-sonnet-4.5';
const MINI = 'openai/gpt-4o-mini';
const LLAMA = 'meta-llama/llama-3.3-70b-instruct';

/** One SSE event as a test reads it. */
interface Ev {
  event: string;
  data: Record<string, unknown> & { type?: string };
}

/** Parse a whole SSE body into named events (comments left out). */
function eventsOf(text: string): Ev[] {
  return text
    .split('\n\n')
    .filter((e) => e.includes('data: '))
    .map((e) => {
      const event = /^event: (.*)$/m.exec(e)?.[1] ?? '';
      const data = JSON.parse(/^data: (.*)$/m.exec(e)![1]!) as Ev['data'];
      return { event, data };
    });
}

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness({
    listen: true,
    overrides: {
      chat: { attemptTimeoutMs: 400, deadlineMs: 3000, keepAliveMs: 50 },
      breaker: { failureThreshold: 1000 },
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.fleet.resetAll();
  h.events.length = 0;
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  request(h.gw.app)
    .post('/api/v1/messages?beta=true')
    .set('x-api-key', h.key)
    .set(headers)
    .send(body as object);

const ask = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  model: SONNET,
  max_tokens: 100,
  messages: [{ role: 'user', content: 'hello there claude' }],
  ...over,
});

/** Stream a request over a real socket; `onEvent` may abort it. */
function stream(
  body: Record<string, unknown>,
  onEvent?: (e: Ev, req: http.ClientRequest) => void,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; events: Ev[]; raw: string }> {
  const url = new URL(`${h.baseUrl}/messages`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'x-api-key': h.key, 'content-type': 'application/json' } },
      (res) => {
        let raw = '';
        let seen = 0;
        res.setEncoding('utf8');
        res.on('data', (t: string) => {
          raw += t;
          const complete = raw.slice(0, raw.lastIndexOf('\n\n') + 2);
          const evs = eventsOf(complete);
          for (const e of evs.slice(seen)) onEvent?.(e, req);
          seen = evs.length;
        });
        const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, events: eventsOf(raw), raw });
        res.on('end', done);
        res.on('close', done);
      },
    );
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    req.end(JSON.stringify({ ...body, stream: true }));
  });
}

describe('POST /messages: whole answers', () => {
  test('an Anthropic upstream: the body passes through with only the gateway fields changed; the answer is relabelled and billed', async () => {
    const body = ask({
      system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
      models: [MINI],
      provider: { sort: 'price' },
      session_id: 'sess-1',
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      output_config: { effort: 'high' },
      some_new_field_2027: { anything: [1, 2] },
      metadata: { user_id: 'user-7' },
    });
    const res = await post(body, {
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'context-management-2025-06-27',
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-generation-id']).toBe(res.body.id);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^gen-/),
      type: 'message',
      role: 'assistant',
      model: SONNET,
      content: [{ type: 'text', text: 'echo: hello there claude' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 2, cache_creation_input_tokens: 0 },
    });
    expect(res.body.usage.cost).toBeCloseTo(3 * 3e-6 + 2 * 0.3e-6 + 4 * 15e-6, 12);
    const call = h.fleet.fakes.anthropic!.calls[0]!;
    const { models, provider, session_id, ...kept } = body;
    void models;
    void provider;
    void session_id;
    expect(call.body).toEqual({ ...kept, model: 'claude-sonnet-4-5-20250929' });
    expect(call.headers['anthropic-beta']).toBe('context-management-2025-06-27');
    expect(call.headers['anthropic-version']).toBe('2023-06-01');
    expect(call.headers['x-api-key']).toBe('test-key-anthropic');
    await until('the record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({
      id: res.body.id,
      apiType: 'messages',
      model: SONNET,
      provider: 'Anthropic',
      sessionId: 'sess-1',
      endUser: 'user-7',
      costUsd: res.body.usage.cost,
      streamed: false,
    });
  });

  test('an OpenAI upstream: translated; Anthropic-only fields and headers never reach it; the answer is in Anthropic shape', async () => {
    const res = await post(
      ask({
        model: MINI,
        system: 'be brief',
        thinking: { type: 'enabled', budget_tokens: 1024 },
        context_management: { edits: [] },
        output_config: { effort: 'low' },
        container: 'c-1',
        mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: 'x' }],
        service_tier: 'auto',
      }),
      { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14' },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'message',
      model: MINI,
      content: [{ type: 'text', text: 'echo: hello there claude' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 5, output_tokens: 4 },
    });
    const call = h.fleet.fakes.openai!.calls[0]!;
    expect(call.path).toBe('/v1/chat/completions');
    expect(Object.keys(call.body).sort()).toEqual(['max_completion_tokens', 'messages', 'model']);
    expect(call.body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hello there claude' },
    ]);
    expect(Object.keys(call.headers).filter((k) => k.startsWith('anthropic'))).toEqual([]);
    await until('the record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({ apiType: 'messages', model: MINI, provider: 'OpenAI' });
  });

  test('tool use to an OpenAI upstream: tools, the call, and the result sent back as a tool message', async () => {
    const tools = [{ name: 'weather', description: 'w', input_schema: { type: 'object', properties: {} } }];
    const first = await post(ask({ model: MINI, tools, tool_choice: { type: 'auto' } }));
    expect(first.body).toMatchObject({
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', id: 'call_fake_1', name: 'weather', input: { text: 'hello there claude' } }],
    });
    const second = await post(
      ask({
        model: MINI,
        tools,
        messages: [
          { role: 'user', content: 'hello there claude' },
          { role: 'assistant', content: first.body.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_fake_1', content: 'sunny' }] },
        ],
      }),
    );
    expect(second.body.content).toEqual([{ type: 'text', text: 'result: sunny' }]);
    const sent = h.fleet.fakes.openai!.calls[1]!.body.messages as unknown[];
    expect(sent.slice(1)).toMatchObject([
      { role: 'assistant', tool_calls: [{ id: 'call_fake_1', function: { name: 'weather' } }] },
      { role: 'tool', tool_call_id: 'call_fake_1', content: 'sunny' },
    ]);
  });

  test('a block with no canonical form is a 400 for an OpenAI upstream, and passes through to Anthropic', async () => {
    const messages = [
      { role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }] },
      { role: 'assistant', content: [{ type: 'server_tool_use', id: 's1', name: 'web_search', input: {} }] },
      { role: 'user', content: 'go on' },
    ];
    const refused = await post(ask({ model: MINI, messages }));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(JSON.stringify(refused.body)).toContain('server_tool_use');
    const served = await post(ask({ messages, tools: [{ type: 'web_search_20250305', name: 'web_search' }] }));
    expect(served.status).toBe(200);
    expect(h.fleet.fakes.anthropic!.calls[0]!.body.messages).toEqual(messages);
    expect(h.fleet.fakes.openai!.calls).toHaveLength(0);
  });

  test.each([
    ['claude-sonnet-4-5', SONNET],
    ['claude-sonnet-4-5-20250929', SONNET],
    ['claude-opus-4-5', 'anthropic/claude-opus-4.5'],
    ['claude-haiku-4-5-20251001', 'anthropic/claude-haiku-4.5'],
    ['claude-sonnet-4-20250514', 'anthropic/claude-sonnet-4'],
    ['claude-sonnet-4', 'anthropic/claude-sonnet-4'],
    ['CLAUDE-HAIKU-4-5', 'anthropic/claude-haiku-4.5'],
  ])('the model name %s resolves to %s', async (name, id) => {
    const res = await post(ask({ model: name }));
    expect(res.status).toBe(200);
    expect(res.body.model).toBe(id);
  });
});

describe('POST /messages: errors in Anthropic envelope', () => {
  test('bad input is a 400, never a 500', async () => {
    for (const bad of [
      {},
      { model: SONNET, messages: [{ role: 'user', content: 'x' }] },
      ask({ max_tokens: 0 }),
      ask({ messages: [{ role: 'system', content: 'x' }] }),
      ask({ messages: [{ role: 'user', content: [{ type: 'text' }] }] }),
      ask({ messages: [{ role: 'user', content: [{ text: 'no type' }] }] }),
      ask({ tool_choice: { type: 'sometimes' } }),
      ask({ temperature: 3 }),
    ]) {
      const res = await post(bad);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.any(String) },
      });
    }
    const notJson = await request(h.gw.app)
      .post('/api/v1/messages')
      .set('x-api-key', h.key)
      .set('content-type', 'application/json')
      .send('{"model":');
    expect(notJson.status).toBe(400);
    expect(notJson.body.type).toBe('error');
  });

  test('401, 404, 429 and 529 in Anthropic envelope', async () => {
    const noKey = await request(h.gw.app).post('/api/v1/messages').send(ask());
    expect(noKey.status).toBe(401);
    expect(noKey.body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const badKey = await request(h.gw.app).post('/api/v1/messages').set('x-api-key', 'sk-nope').send(ask());
    expect(badKey.body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const unknown = await post(ask({ model: 'claude-nonexistent-9' }));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    h.fleet.fakes.anthropic!.setSticky({
      status: 429,
      body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow' } },
    });
    const limited = await post(ask());
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    h.fleet.fakes.anthropic!.setSticky({
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'busy' } },
    });
    const overloaded = await post(ask());
    expect(overloaded.status).toBe(529);
    expect(overloaded.body).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    h.fleet.fakes.anthropic!.setSticky({ status: 500 });
    const broken = await post(ask());
    expect(broken.status).toBeGreaterThanOrEqual(500);
    expect(broken.body).toMatchObject({
      type: 'error',
      error: { type: expect.stringMatching(/api_error|overloaded_error/) },
    });
  });

  test('402 when the worst case does not fit the key limit', async () => {
    const created = await request(h.gw.app)
      .post('/api/v1/keys')
      .set('Authorization', bearer(h.gw.mgmtKey))
      .send({ name: 'tiny', limit: 0.0001 });
    expect(created.status).toBe(201);
    const res = await request(h.gw.app)
      .post('/api/v1/messages')
      .set('x-api-key', created.body.key as string)
      .send(ask({ max_tokens: 64000 }));
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') },
    });
  });
});

describe('POST /messages: streams', () => {
  test('Anthropic upstream: events pass through, message_start relabelled, closed with the billed usage', async () => {
    const s = await stream(ask({ max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 } }));
    expect(s.status).toBe(200);
    const types = s.events.map((e) => e.event);
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(types.filter((t) => t === 'message_delta')).toHaveLength(1);
    expect(types).toContain('ping');
    expect(s.events[0]!.data.message).toMatchObject({ id: s.headers['x-generation-id'], model: SONNET });
    const deltas = s.events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => e.data.delta as Record<string, string>);
    expect(deltas[0]).toEqual({ type: 'thinking_delta', thinking: 'thinking about: hello there claude' });
    expect(deltas[1]).toEqual({ type: 'signature_delta', signature: FAKE_SIGNATURE });
    expect(
      deltas
        .filter((d) => d.type === 'text_delta')
        .map((d) => d.text)
        .join(''),
    ).toBe('echo: hello there claude');
    const last = s.events.at(-2)!.data;
    expect(last).toMatchObject({ delta: { stop_reason: 'end_turn' }, usage: { input_tokens: 3, output_tokens: 4 } });
    await until('the record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({
      apiType: 'messages',
      streamed: true,
      tokensCompletion: 4,
      costUsd: (last.usage as { cost: number }).cost,
    });
  });

  test('OpenAI upstream: canonical events become Anthropic named events, blocks opened and closed', async () => {
    const s = await stream(ask({ model: MINI, tools: [{ name: 'weather', input_schema: { type: 'object' } }] }));
    const types = s.events.map((e) => e.event);
    expect(types).toEqual([
      'message_start',
      'content_block_start',
      ...types.slice(2, -3).map(() => 'content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(s.events[1]!.data.content_block).toMatchObject({ type: 'tool_use', id: 'call_fake_1', name: 'weather' });
    const json = s.events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => (e.data.delta as { partial_json: string }).partial_json);
    expect(JSON.parse(json.join(''))).toEqual({ text: 'hello there claude' });
    expect(s.events.at(-2)!.data).toMatchObject({
      delta: { stop_reason: 'tool_use' },
      usage: { output_tokens: expect.any(Number) },
    });
  });

  test('a stream that breaks after it started ends with an error event, its open block closed', async () => {
    h.fleet.fakes.anthropic!.queue({ errorAfterEvents: 5 });
    const s = await stream(ask());
    const last = s.events.at(-1)!;
    expect(last).toMatchObject({ event: 'error', data: { type: 'error', error: { type: 'overloaded_error' } } });
    expect(s.events.at(-2)!.event).toBe('content_block_stop');
    await until('the record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({ status: 'error', apiType: 'messages' });
  });

  test('a stream whose every attempt opened but sent no content ends with an error event', async () => {
    // The upstream answers 200 and then nothing: the 200 has gone out, the keep-alives follow.
    h.fleet.fakes.anthropic!.setSticky({ beforeEvent: () => new Promise(() => undefined) });
    const s = await stream(ask());
    expect(s.status).toBe(200);
    expect(s.raw).toContain(': SWITCHYARD PROCESSING');
    expect(s.events).toEqual([
      { event: 'error', data: { type: 'error', error: { type: 'api_error', message: expect.any(String) } } },
    ]);
  });

  test('fallback before the first content: the next model serves, one record', async () => {
    h.fleet.fakes.anthropic!.queue({ status: 529 });
    const s = await stream(ask({ models: [LLAMA] }));
    expect(s.events[0]!.data.message).toMatchObject({ model: LLAMA });
    expect(s.events.at(-1)!.event).toBe('message_stop');
    await until('the record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({ model: LLAMA, attempts: 2 });
  });

  test('a client that leaves: the upstream is aborted and the partial answer recorded', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    h.fleet.fakes.anthropic!.queue({ beforeEvent: (i) => (i < 6 ? Promise.resolve() : gate) });
    await stream(ask(), (e, req) => {
      if (e.event === 'content_block_delta') req.destroy();
    });
    const ended = await h.fleet.fakes.anthropic!.calls[0]!.ended;
    release();
    expect(ended.aborted).toBe(true);
    await until('the record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({
      apiType: 'messages',
      streamed: true,
      nativeFinishReason: 'client_disconnected',
    });
  });
});

describe('the rest of the door', () => {
  test('count_tokens answers the gateway count, authenticated and unpriced', async () => {
    const res = await request(h.gw.app)
      .post('/api/v1/messages/count_tokens')
      .set('Authorization', bearer(h.key))
      .send({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'count these words please' }] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ input_tokens: expect.any(Number) });
    expect(res.body.input_tokens).toBeGreaterThan(4);
    const noKey = await request(h.gw.app).post('/api/v1/messages/count_tokens').send({ messages: [] });
    expect(noKey.status).toBe(401);
    expect(noKey.body.type).toBe('error');
    expect(h.events).toHaveLength(0);
  });

  test('GET /models in Anthropic shape for a caller that sends anthropic-version', async () => {
    const res = await request(h.gw.app)
      .get('/api/v1/models')
      .set('x-api-key', h.key)
      .set('anthropic-version', '2023-06-01');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ has_more: false, first_id: expect.any(String), last_id: expect.any(String) });
    expect(res.body.data).toContainEqual({
      type: 'model',
      id: SONNET,
      display_name: 'Anthropic: Claude Sonnet 4.5',
      created_at: '2025-09-29T00:00:00.000Z',
    });
    const hosted = await request(h.gw.app).get('/api/v1/models').set('Authorization', bearer(h.key));
    expect(hosted.body.data[0]).toHaveProperty('pricing');
  });

  test("GET /generation finds a Messages answer; Claude Code's session header names its session", async () => {
    const res = await post(ask(), { 'x-claude-code-session-id': 'cc-session-1' });
    await until('the record', () => h.events.length === 1);
    expect(h.events[0]!.sessionId).toBe('cc-session-1');
    await h.gw.deps.recorder.flush();
    const gen = await request(h.gw.app).get(`/api/v1/generation?id=${res.body.id}`).set('Authorization', bearer(h.key));
    expect(gen.status).toBe(200);
    expect(gen.body.data).toMatchObject({ id: res.body.id, model: SONNET });
  });
});

/** A real Claude Code first turn, as captured (test/fixtures/agents/README.md). */
const fixtureBody = JSON.parse(
  readFileSync(path.join(__dirname, '..', 'fixtures', 'agents', 'claude-code-first-turn.json'), 'utf8'),
) as { body: Record<string, unknown>; headers: Record<string, string> };

describe('a real Claude Code first turn (fixture)', () => {
  test('is accepted and answered 200 through the door, streamed, its thinking and context_management passed through', async () => {
    const fixture = fixtureBody;
    const s = await stream(fixture.body);
    expect(s.status).toBe(200);
    expect(s.events.at(-1)!.event).toBe('message_stop');
    const sent = h.fleet.fakes.anthropic!.calls[0]!.body;
    expect(sent.context_management).toEqual(fixture.body.context_management);
    expect(sent.thinking).toEqual(fixture.body.thinking);
    expect(sent.tools).toEqual(fixture.body.tools);
  });
});
