/**
 * POST /chat/completions, whole answers, through HTTP against fake upstreams speaking the OpenAI
 * and Anthropic wire formats: the answer's shape and usage cost, the usage record, GET
 * /generation, fallback across endpoints and across `models`, every final status, and the
 * errors before any upstream call (unknown model, an embeddings model, a bad body).
 */
import request from 'supertest';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { bearer } from '../helpers/gateway';
import type { Fault } from '../fakes/server';

const LLAMA = 'meta-llama/llama-3.3-70b-instruct';
const HAIKU = 'anthropic/claude-3.5-haiku';
const LLAMA_PROVIDERS = ['deepinfra', 'groq', 'together', 'fireworks'] as const;
/** Per-token prices of the endpoints the tests land on (config/chat-models.yaml, USD per 1M). */
const DEEPINFRA_LLAMA = { prompt: 0.13e-6, completion: 0.4e-6 };

describe('POST /chat/completions (whole answers)', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({
      overrides: { chat: { attemptTimeoutMs: 400, deadlineMs: 3000 }, breaker: { failureThreshold: 1000 } },
    });
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.fleet.resetAll();
    h.events.length = 0;
  });

  const chat = (body: Record<string, unknown>) =>
    request(h.gw.app)
      .post('/api/v1/chat/completions')
      .set('Authorization', bearer(h.key))
      .send({ model: LLAMA, messages: [{ role: 'user', content: 'hello there' }], ...body });

  test('the answer: OpenAI shape plus provider, usage.cost and X-Generation-Id; one record with the same cost', async () => {
    const res = await chat({});
    expect(res.status).toBe(200);
    expect(res.headers['x-generation-id']).toBe(res.body.id);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^gen-\d+-[A-Za-z0-9]{20}$/),
      object: 'chat.completion',
      model: LLAMA,
      provider: 'DeepInfra',
      system_fingerprint: 'fp_fake',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'echo: hello there' },
          finish_reason: 'stop',
          native_finish_reason: 'stop',
        },
      ],
    });
    const usage = res.body.usage;
    expect(usage).toMatchObject({
      prompt_tokens: 2,
      completion_tokens: 3,
      total_tokens: 5,
      is_byok: false,
      prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    });
    expect(usage.cost).toBeCloseTo(2 * DEEPINFRA_LLAMA.prompt + 3 * DEEPINFRA_LLAMA.completion, 12);
    // The upstream saw its own model name and never the gateway's fields.
    const sent = h.fleet.fakes.deepinfra!.calls[0]!;
    expect(sent.path).toBe('/v1/openai/chat/completions');
    expect(sent.body).toMatchObject({
      model: expect.any(String),
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(sent.body.model).not.toBe(LLAMA);
    expect(h.events).toHaveLength(1);
    expect(h.events[0]).toMatchObject({
      id: res.body.id,
      apiType: 'chat',
      model: LLAMA,
      provider: 'DeepInfra',
      tokensPrompt: 2,
      tokensCompletion: 3,
      costUsd: usage.cost,
      streamed: false,
      finishReason: 'stop',
      outputModality: 'text',
      inputModality: 'text',
      usageEstimated: false,
      toolCalls: 0,
    });
  });

  test('top_k, min_p and repetition_penalty reach an endpoint that lists them, and no other', async () => {
    const sampling = { top_k: 40, min_p: 0.05, repetition_penalty: 1.1 };
    expect((await chat({ ...sampling, provider: { order: ['deepinfra'], allow_fallbacks: false } })).status).toBe(200);
    expect(h.fleet.fakes.deepinfra!.calls[0]!.body).toMatchObject(sampling);
    // Groq's Llama lists none of them: the request is still served there, without them.
    expect((await chat({ ...sampling, provider: { order: ['groq'], allow_fallbacks: false } })).status).toBe(200);
    const toGroq = h.fleet.fakes.groq!.calls[0]!.body;
    for (const field of Object.keys(sampling)) expect(toGroq).not.toHaveProperty(field);
  });

  test('chat shares the attempt runner: attempts, fallbacks and the gateway overhead are counted as for embeddings', async () => {
    h.fleet.fakes.deepinfra!.queue({ status: 500 });
    const before = await h.gw.deps.metrics.registry.getSingleMetricAsString('switchyard_gateway_overhead_seconds');
    const count = (text: string) =>
      Number(
        /switchyard_gateway_overhead_seconds_count\{route="\/api\/v1\/chat\/completions"\} (\d+)/.exec(text)?.[1] ?? 0,
      );
    expect((await chat({})).status).toBe(200);
    expect((await chat({ stream: true })).status).toBe(200);
    const text = await h.gw.deps.metrics.registry.metrics();
    expect(count(text) - count(before)).toBe(2);
    expect(text).toMatch(
      new RegExp(
        `switchyard_upstream_requests_total\\{provider="deepinfra",model="${LLAMA.replace(/[./]/g, '\\$&')}",outcome="server"\\} [1-9]`,
      ),
    );
    expect(text).toMatch(
      new RegExp(
        `switchyard_upstream_fallbacks_total\\{provider="deepinfra",model="${LLAMA.replace(/[./]/g, '\\$&')}"\\} [1-9]`,
      ),
    );
  });

  test('GET /generation?id= serves the chat generation', async () => {
    const res = await chat({});
    await h.gw.deps.recorder.flush();
    const gen = await request(h.gw.app).get(`/api/v1/generation?id=${res.body.id}`).set('Authorization', bearer(h.key));
    expect(gen.status).toBe(200);
    expect(gen.body.data).toMatchObject({
      id: res.body.id,
      model: LLAMA,
      tokens_prompt: 2,
      tokens_completion: 3,
      finish_reason: 'stop',
      provider_name: 'DeepInfra',
    });
    expect(gen.body.data.total_cost).toBeCloseTo(res.body.usage.cost, 12);
  });

  test('a tool call round trip: the model calls the tool, the tool result goes back, the model answers', async () => {
    const tools = [
      {
        type: 'function',
        function: {
          name: 'lookup',
          description: 'Look it up',
          parameters: { type: 'object', properties: { text: { type: 'string' } } },
        },
      },
    ];
    const first = await chat({ tools, messages: [{ role: 'user', content: 'find cats' }] });
    expect(first.status).toBe(200);
    const call = first.body.choices[0].message.tool_calls[0];
    expect(call).toMatchObject({ type: 'function', function: { name: 'lookup', arguments: '{"text":"find cats"}' } });
    expect(first.body.choices[0].finish_reason).toBe('tool_calls');
    expect(h.events[0]!.toolCalls).toBe(1);
    const second = await chat({
      tools,
      messages: [
        { role: 'user', content: 'find cats' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'cats are here' },
        { role: 'user', content: 'thanks' },
      ],
    });
    expect(second.status).toBe(200);
    expect(second.body.choices[0].message.tool_calls[0].function.arguments).toBe('{"text":"thanks"}');
  });

  test('Anthropic: translated both ways, cache reads priced at the cache price', async () => {
    const res = await chat({
      model: HAIKU,
      max_tokens: 50,
      messages: [
        {
          role: 'system',
          content: [{ type: 'text', text: 'be brief and kind', cache_control: { type: 'ephemeral' } }],
        },
        { role: 'user', content: 'hello there' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      model: HAIKU,
      provider: 'Anthropic',
      choices: [{ message: { content: 'echo: hello there' }, finish_reason: 'stop', native_finish_reason: 'end_turn' }],
    });
    const sent = h.fleet.fakes.anthropic!.calls[0]!;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('test-key-anthropic');
    expect(sent.body).toMatchObject({
      max_tokens: 50,
      system: [{ type: 'text', text: 'be brief and kind', cache_control: { type: 'ephemeral' } }],
    });
    const u = res.body.usage;
    expect(u.prompt_tokens_details.cached_tokens).toBe(4);
    // 4 cached prompt tokens at 0.08/M, 2 plain at 0.80/M, 3 completion at 4.00/M.
    expect(u.cost).toBeCloseTo(4 * 0.08e-6 + (u.prompt_tokens - 4) * 0.8e-6 + u.completion_tokens * 4e-6, 12);
  });

  test('a top-level cache_control is Anthropic automatic caching; an OpenAI-format upstream never gets it', async () => {
    const messages = [
      { role: 'system', content: 'be brief and kind' },
      { role: 'user', content: 'hello there' },
    ];
    const res = await chat({ model: HAIKU, max_tokens: 50, messages, cache_control: { type: 'ephemeral', ttl: '1h' } });
    expect(res.status).toBe(200);
    expect(h.fleet.fakes.anthropic!.calls[0]!.body).toMatchObject({ cache_control: { type: 'ephemeral', ttl: '1h' } });
    expect(res.body.usage.prompt_tokens_details.cached_tokens).toBe(4);
    const openai = await chat({ model: 'openai/gpt-4o-mini', messages, cache_control: { type: 'ephemeral' } });
    expect(openai.status).toBe(200);
    expect(h.fleet.fakes.openai!.calls[0]!.body).not.toHaveProperty('cache_control');
    expect((await chat({ model: HAIKU, messages, cache_control: { type: 'persistent' } })).status).toBe(400);
  });

  test('an upstream that reports no usage: the gateway counts the tokens and marks the record estimated', async () => {
    h.fleet.fakes.deepinfra!.reportUsage = false;
    const res = await chat({});
    expect(res.status).toBe(200);
    expect(res.body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(res.body.usage.completion_tokens).toBeGreaterThan(0);
    expect(res.body.usage.cost).toBeGreaterThan(0);
    expect(h.events[0]).toMatchObject({ usageEstimated: true, costUsd: res.body.usage.cost });
  });

  test.each<[string, Fault]>([
    ['500', { status: 500 }],
    ['429', { status: 429 }],
    ['529', { status: 529 }],
    ['a hang', { hang: true }],
    ['malformed JSON', { malformed: true }],
  ])('first endpoint fails with %s → the next one answers', async (_name, fault) => {
    h.fleet.fakes.deepinfra!.setSticky(fault);
    const res = await chat({});
    expect(res.status).toBe(200);
    expect(res.body.provider).toBe('Groq');
    expect(h.events[0]!.attempts).toBe(2);
  });

  test('models: when every endpoint of the first model fails, the next model answers and names itself', async () => {
    for (const p of LLAMA_PROVIDERS) h.fleet.fakes[p]!.setSticky({ status: 500 });
    const res = await chat({ model: undefined, models: [LLAMA, HAIKU] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ model: HAIKU, provider: 'Anthropic' });
    expect(h.events[0]).toMatchObject({ model: HAIKU, attempts: 5 });
  });

  test.each<[string, Fault, number]>([
    ['500', { status: 500 }, 502],
    ['hang', { hang: true }, 524],
    ['529', { status: 529 }, 529],
    ['429', { status: 429, headers: { 'retry-after': '7' } }, 429],
    ['400 (the request is bad: no fallback)', { status: 400 }, 400],
  ])('every endpoint fails with %s → %i envelope, nothing recorded', async (_name, fault, status) => {
    for (const p of LLAMA_PROVIDERS) h.fleet.fakes[p]!.setSticky(fault);
    const res = await chat({});
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(status);
    expect(h.events).toHaveLength(0);
  });

  test('errors before any upstream call: unknown model 404, an embeddings model 400, a bad body 400, no model 400', async () => {
    const unknown = await chat({ model: 'nobody/nothing' });
    expect(unknown.status).toBe(404);
    const embeddings = await chat({ model: 'openai/text-embedding-3-small' });
    expect(embeddings.status).toBe(400);
    expect(JSON.stringify(embeddings.body)).toMatch(/not a chat model/);
    const bad = await chat({ messages: [{ role: 'wizard', content: 'hi' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('Invalid request parameters');
    const none = await chat({ model: undefined });
    expect(none.status).toBe(400);
    for (const p of LLAMA_PROVIDERS) expect(h.fleet.fakes[p]!.calls).toHaveLength(0);
  });

  test("a prompt longer than every endpoint's context → 400 before any upstream call", async () => {
    const res = await chat({ messages: [{ role: 'user', content: 'word '.repeat(140000) }] });
    expect(res.status).toBe(400);
    expect(res.body.error.metadata.context_length).toBeGreaterThan(0);
    for (const p of LLAMA_PROVIDERS) expect(h.fleet.fakes[p]!.calls).toHaveLength(0);
  });

  test('provider.only routes to the named provider; require_parameters excludes endpoints that ignore a parameter', async () => {
    const only = await chat({ provider: { only: ['together'] } });
    expect(only.body.provider).toBe('Together');
    const unsupported = await chat({ model: HAIKU, seed: 7, provider: { require_parameters: true } });
    expect(unsupported.status).toBe(404);
  });
});
