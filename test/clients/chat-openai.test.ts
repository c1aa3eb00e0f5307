/**
 * Issue 42, "Tests": the `openai` npm client's `chat.completions.create` against the gateway over
 * fake upstreams, whole and streamed: a plain answer, a tool-call round trip, `response_format`
 * `json_schema`, the `stream: true` iterator and the client's stream helper (which reassembles
 * tool-call arguments split across chunks), and the Anthropic route translated both ways. Each
 * test checks what the client returned and what the gateway recorded for that generation.
 */
import OpenAI from 'openai';
import request from 'supertest';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { bearer } from '../helpers/gateway';
import { drain, recordedOnce, weather, type Extensions } from '../helpers/openai-client';
import type { UsageEvent } from '../../src/usage/types';

const MINI = 'openai/gpt-4o-mini';
const HAIKU = 'anthropic/claude-3.5-haiku';
/** Per-token prices (config/chat-models.yaml, USD per 1M). */
const MINI_PRICE = { prompt: 0.15e-6, completion: 0.6e-6 };
const HAIKU_PRICE = { prompt: 0.8e-6, completion: 4e-6 };

let h: GatewayHarness;
let client: OpenAI;
beforeAll(async () => {
  h = await startGatewayHarness({ listen: true });
  client = new OpenAI({ apiKey: h.key, baseURL: h.baseUrl, maxRetries: 0 });
});
afterAll(() => h.close());
beforeEach(() => {
  h.fleet.resetAll();
  h.events.length = 0;
});

/** The one usage event recorded for generation `id`. */
const recorded = (id: string): UsageEvent => recordedOnce(h.events, id);

describe('openai chat.completions.create (whole answers)', () => {
  test('a plain answer: content, usage with cost, provider, and the record behind its id', async () => {
    const res = await client.chat.completions.create({
      model: MINI,
      messages: [{ role: 'user', content: 'hello from openai' }],
    });
    const ext = res as unknown as Extensions;
    expect(res).toMatchObject({
      object: 'chat.completion',
      model: MINI,
      choices: [{ message: { role: 'assistant', content: 'echo: hello from openai' }, finish_reason: 'stop' }],
    });
    expect(res.id).toMatch(/^gen-/);
    expect(ext.provider).toBe('OpenAI');
    expect(res.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    expect(ext.usage.cost).toBeCloseTo(3 * MINI_PRICE.prompt + 4 * MINI_PRICE.completion, 12);
    expect(recorded(res.id)).toMatchObject({
      apiType: 'chat',
      model: MINI,
      provider: 'OpenAI',
      tokensPrompt: 3,
      tokensCompletion: 4,
      costUsd: ext.usage.cost,
      streamed: false,
      finishReason: 'stop',
    });

    await h.gw.deps.recorder.flush();
    const gen = await request(h.gw.app).get(`/api/v1/generation?id=${res.id}`).set('Authorization', bearer(h.key));
    expect(gen.body.data).toMatchObject({
      id: res.id,
      model: MINI,
      provider_name: 'OpenAI',
      tokens_prompt: 3,
      tokens_completion: 4,
      streamed: false,
    });
  });

  test('a tool-call round trip: the call, its arguments, the result sent back, the answer built on it', async () => {
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'weather in Paris' }];
    const first = await client.chat.completions.create({ model: MINI, messages, tools: weather, tool_choice: 'auto' });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const call = first.choices[0]!.message.tool_calls?.[0];
    expect(call).toMatchObject({ type: 'function', id: expect.any(String), function: { name: 'weather' } });
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(JSON.parse(call.function.arguments)).toEqual({ text: 'weather in Paris' });
    expect(recorded(first.id)).toMatchObject({ toolCalls: 1, finishReason: 'tool_calls', streamed: false });

    const second = await client.chat.completions.create({
      model: MINI,
      tools: weather,
      messages: [
        ...messages,
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: 'sunny and 21C' },
      ],
    });
    expect(second.choices[0]).toMatchObject({ message: { content: 'result: sunny and 21C' }, finish_reason: 'stop' });
    expect(second.id).not.toBe(first.id);
    expect(recorded(second.id)).toMatchObject({ toolCalls: 0, finishReason: 'stop' });
    // The upstream got the assistant's call and the tool's result, paired by the call's id.
    const sent = h.fleet.fakes.openai!.calls[1]!.body.messages as Array<Record<string, unknown>>;
    expect(sent.slice(1)).toMatchObject([
      {
        role: 'assistant',
        tool_calls: [{ id: call.id, function: { name: 'weather', arguments: call.function.arguments } }],
      },
      { role: 'tool', tool_call_id: call.id, content: 'sunny and 21C' },
    ]);
  });

  test('response_format json_schema: the schema reaches the upstream and the content parses as JSON', async () => {
    const schema = {
      type: 'object',
      properties: { echo: { type: 'string' } },
      required: ['echo'],
      additionalProperties: false,
    };
    const res = await client.chat.completions.create({
      model: MINI,
      messages: [{ role: 'user', content: 'structured please' }],
      response_format: { type: 'json_schema', json_schema: { name: 'echo', strict: true, schema } },
    });
    expect(JSON.parse(res.choices[0]!.message.content ?? '')).toEqual({ echo: 'structured please' });
    expect(h.fleet.fakes.openai!.calls[0]!.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'echo', strict: true, schema },
    });
    expect(recorded(res.id)).toMatchObject({
      model: MINI,
      finishReason: 'stop',
      costUsd: (res as unknown as Extensions).usage.cost,
    });
  });

  test('Anthropic: a system prompt and a tool round trip through the Messages translation', async () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'weather in Oslo' },
    ];
    const first = await client.chat.completions.create({ model: HAIKU, messages, tools: weather, max_tokens: 100 });
    const call = first.choices[0]!.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(call.function.name).toBe('weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ text: 'weather in Oslo' });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect((first as unknown as Extensions).provider).toBe('Anthropic');

    const second = await client.chat.completions.create({
      model: HAIKU,
      tools: weather,
      max_tokens: 100,
      messages: [...messages, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'snow' }],
    });
    expect(second.choices[0]).toMatchObject({
      message: { role: 'assistant', content: 'result: snow' },
      finish_reason: 'stop',
    });
    const ext = second as unknown as Extensions;
    expect(ext.usage.cost).toBeCloseTo(
      ext.usage.prompt_tokens * HAIKU_PRICE.prompt + ext.usage.completion_tokens * HAIKU_PRICE.completion,
      12,
    );
    expect(recorded(second.id)).toMatchObject({
      model: HAIKU,
      provider: 'Anthropic',
      finishReason: 'stop',
      costUsd: ext.usage.cost,
    });
    // Anthropic got the system prompt apart and the result as a tool_result block for the call.
    const sent = h.fleet.fakes.anthropic!.calls[1]!.body;
    expect(JSON.stringify(sent.system)).toContain('be brief');
    expect(JSON.stringify(sent.messages)).toContain(`"tool_use_id":"${call.id}"`);
  });
});

describe('openai chat.completions.create (streams)', () => {
  test('the stream: true iterator: content piece by piece, one id, usage with cost in the last chunk, one streamed record', async () => {
    const chunks = await drain(
      await client.chat.completions.create({
        model: MINI,
        messages: [{ role: 'user', content: 'stream to me please' }],
        stream: true,
      }),
    );
    const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(content).toBe('echo: stream to me please');
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThanOrEqual(5);
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);
    const last = chunks[chunks.length - 1]!;
    const usage = last.usage as unknown as Extensions['usage'];
    expect(last.choices).toEqual([]);
    expect(usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 5 });
    expect(usage.cost).toBeCloseTo(4 * MINI_PRICE.prompt + 5 * MINI_PRICE.completion, 12);
    expect(last.id).toMatch(/^gen-/);
    expect(recorded(last.id)).toMatchObject({
      model: MINI,
      provider: 'OpenAI',
      streamed: true,
      tokensPrompt: 4,
      tokensCompletion: 5,
      costUsd: usage.cost,
      finishReason: 'stop',
    });
  });

  test('the stream helper reassembles a tool call whose arguments came in several chunks', async () => {
    const stream = client.chat.completions.stream({
      model: MINI,
      messages: [{ role: 'user', content: 'weather in Lima' }],
      tools: weather,
    });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(call.function.name).toBe('weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ text: 'weather in Lima' });
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(recorded(final.id)).toMatchObject({ toolCalls: 1, finishReason: 'tool_calls', streamed: true });
  });

  test('Anthropic events arrive as OpenAI chunks the iterator reads', async () => {
    const chunks = await drain(
      await client.chat.completions.create({
        model: HAIKU,
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hi claude' }],
        stream: true,
      }),
    );
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('echo: hi claude');
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);
    const last = chunks[chunks.length - 1]!;
    const usage = last.usage as unknown as Extensions['usage'];
    expect(usage).toMatchObject({ prompt_tokens: 2, completion_tokens: 3 });
    expect(last.id).toMatch(/^gen-/);
    expect(recorded(last.id)).toMatchObject({
      model: HAIKU,
      provider: 'Anthropic',
      streamed: true,
      costUsd: usage.cost,
    });
  });

  // Known defect (src/chat/stream.ts, src/providers/*/stream): only the gateway's own last chunk
  // carries the generation id and the catalog model; the chunks before it keep the upstream's id
  // (`chatcmpl-…`, `msg_…`) and model name, so a client that takes the id from the first chunk
  // (as the Vercel AI SDK and LangChain do) cannot find its generation. `failing` until fixed:
  // then make these plain tests.
  test.each([MINI, HAIKU])(
    'every chunk of a %s stream carries the generation id and the catalog model',
    async (model) => {
      const chunks = await drain(
        await client.chat.completions.create({
          model,
          max_tokens: 50,
          messages: [{ role: 'user', content: 'which id' }],
          stream: true,
        }),
      );
      const last = chunks[chunks.length - 1]!;
      expect(last.id).toMatch(/^gen-/);
      expect(chunks.map((c) => [c.id, c.model])).toEqual(chunks.map(() => [last.id, model]));
    },
  );
});

test('models.retrieve reads one catalog model; an unknown one is the client’s NotFoundError', async () => {
  const model = await client.models.retrieve(MINI);
  expect(model).toMatchObject({ id: MINI, object: 'model', owned_by: 'openai' });
  expect((model as unknown as { context_length: number }).context_length).toBe(128000);
  await expect(client.models.retrieve('nobody/nothing')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
});
