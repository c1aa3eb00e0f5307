/**
 * Issue 57: the official `@anthropic-ai/sdk` against the gateway's Messages door over fake
 * upstreams, as Claude Code and the SDK's users call it (`baseURL` = the gateway's `/api`, so the
 * SDK calls `/api/v1/messages`): `messages.create`, `messages.stream` (text events,
 * `finalMessage`), `messages.countTokens`, a tool-use round trip and a thinking round trip (the
 * signature comes back unchanged to the Anthropic-format upstream), against an Anthropic-format
 * upstream and an OpenAI-format one, authenticated by `apiKey` (x-api-key) and by `authToken`
 * (bearer). Each checks what the SDK returned and what the gateway recorded.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { FAKE_SIGNATURE } from '../fakes/chat-wires';
import { until } from '../helpers/eventually';
import type { UsageEvent } from '../../src/usage/types';

const SONNET = 'claude-sonnet-4-5';
const MINI = 'openai/gpt-4o-mini';

const weather: Tool[] = [
  {
    name: 'weather',
    description: 'The weather in a place',
    input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
];

let h: GatewayHarness;
let byKey: Anthropic;
let byToken: Anthropic;
beforeAll(async () => {
  // Keep-alive comments every 20 ms, so a slow upstream's stream starts with some.
  h = await startGatewayHarness({ listen: true, overrides: { chat: { keepAliveMs: 20 } } });
  const baseURL = h.baseUrl!.replace(/\/v1$/, '');
  byKey = new Anthropic({ apiKey: h.key, baseURL, maxRetries: 0 });
  byToken = new Anthropic({ apiKey: null, authToken: h.key, baseURL, maxRetries: 0 });
});
afterAll(() => h.close());
beforeEach(() => {
  h.fleet.resetAll();
  h.events.length = 0;
});

/** The one usage event recorded for generation `id`. */
async function recorded(id: string): Promise<UsageEvent> {
  await until(`the record of ${id}`, () => h.events.some((e) => e.id === id));
  const matching = h.events.filter((e) => e.id === id);
  expect(matching).toHaveLength(1);
  return matching[0]!;
}

describe.each([
  ['an Anthropic-format upstream', SONNET, 'anthropic/claude-sonnet-4.5', 'Anthropic'],
  ['an OpenAI-format upstream', MINI, MINI, 'OpenAI'],
])('@anthropic-ai/sdk against %s', (_name, model, catalogId, provider) => {
  test('messages.create (x-api-key): the text, the usage with its cost, the record', async () => {
    const msg = await byKey.messages.create({
      model,
      max_tokens: 100,
      system: 'be brief',
      messages: [{ role: 'user', content: 'hello from the sdk' }],
    });
    expect(msg).toMatchObject({ type: 'message', role: 'assistant', model: catalogId, stop_reason: 'end_turn' });
    expect(msg.content).toEqual([{ type: 'text', text: 'echo: hello from the sdk' }]);
    expect(msg.id).toMatch(/^gen-/);
    expect(msg.usage.output_tokens).toBe(5);
    const cost = (msg.usage as unknown as { cost: number }).cost;
    expect(cost).toBeGreaterThan(0);
    expect(await recorded(msg.id)).toMatchObject({
      apiType: 'messages',
      model: catalogId,
      provider,
      tokensCompletion: 5,
      costUsd: cost,
      streamed: false,
    });
  });

  test('messages.stream (bearer authToken): text events, finalMessage with the billed usage', async () => {
    const stream = byToken.messages.stream({
      model,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'stream it to me' }],
    });
    const texts: string[] = [];
    stream.on('text', (t) => texts.push(t));
    const final = await stream.finalMessage();
    expect(texts.join('')).toBe('echo: stream it to me');
    expect(texts.length).toBeGreaterThan(2);
    expect(final).toMatchObject({ id: expect.stringMatching(/^gen-/), model: catalogId, stop_reason: 'end_turn' });
    expect(final.content).toEqual([{ type: 'text', text: 'echo: stream it to me' }]);
    expect(final.usage).toMatchObject({ input_tokens: 4, output_tokens: 5 });
    // The SDK's stream keeps only the usage fields it knows (the gateway's `cost` is in the raw message_delta).
    const record = await recorded(final.id);
    expect(record).toMatchObject({ streamed: true, tokensPrompt: 4, tokensCompletion: 5 });
    expect(record.costUsd).toBeGreaterThan(0);
  });

  test('a tool-use round trip, streamed then whole', async () => {
    const messages: MessageParam[] = [{ role: 'user', content: 'weather in Oslo' }];
    const first = await byKey.messages.stream({ model, max_tokens: 100, tools: weather, messages }).finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const call = first.content.find((b) => b.type === 'tool_use');
    if (call?.type !== 'tool_use') throw new Error('expected a tool_use block');
    expect(call).toMatchObject({ name: 'weather', input: { text: 'weather in Oslo' } });
    expect(await recorded(first.id)).toMatchObject({ toolCalls: 1, finishReason: 'tool_calls' });
    const second = await byKey.messages.create({
      model,
      max_tokens: 100,
      tools: weather,
      messages: [
        ...messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'snow' }] },
      ],
    });
    expect(second.content).toEqual([{ type: 'text', text: 'result: snow' }]);
  });

  test('messages.countTokens: the gateway count', async () => {
    const counted = await byKey.messages.countTokens({
      model,
      messages: [{ role: 'user', content: 'how many tokens is this' }],
    });
    expect(counted.input_tokens).toBeGreaterThan(5);
    expect(h.events).toHaveLength(0);
  });
});

describe('@anthropic-ai/sdk thinking round trips', () => {
  test('the thinking block and its signature come back unchanged', async () => {
    const messages: MessageParam[] = [{ role: 'user', content: 'think about it' }];
    const first = await byKey.messages
      .stream({ model: SONNET, max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages })
      .finalMessage();
    expect(first.content[0]).toEqual({
      type: 'thinking',
      thinking: 'thinking about: think about it',
      signature: FAKE_SIGNATURE,
    });
    const whole = await byKey.messages.create({
      model: SONNET,
      max_tokens: 2000,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [...messages, { role: 'assistant', content: first.content }, { role: 'user', content: 'and now?' }],
    });
    expect(whole.content[0]).toMatchObject({ type: 'thinking', signature: FAKE_SIGNATURE });
    const sent = h.fleet.fakes.anthropic!.calls[1]!.body.messages as MessageParam[];
    expect(sent[1]).toEqual({ role: 'assistant', content: JSON.parse(JSON.stringify(first.content)) });
    expect(h.fleet.fakes.anthropic!.calls[1]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
  });

  test('to an OpenAI-format upstream: its reasoning is a thinking block, sent back without reaching it', async () => {
    const model = 'deepseek/deepseek-v3.2';
    const messages: MessageParam[] = [{ role: 'user', content: 'think about it' }];
    const thinking = { type: 'enabled', budget_tokens: 1200 } as const;
    const first = await byKey.messages.stream({ model, max_tokens: 2000, thinking, messages }).finalMessage();
    expect(first.content[0]).toEqual({ type: 'thinking', thinking: 'thinking about: think about it', signature: '' });
    const calls = h.fleet.fakes.fireworks!.calls;
    // Its endpoint lists no `reasoning` parameter: no effort is sent, and never Anthropic's `thinking`.
    expect(calls[0]!.body).not.toHaveProperty('reasoning_effort');
    expect(calls[0]!.body).not.toHaveProperty('thinking');
    const whole = await byKey.messages.create({
      model,
      max_tokens: 2000,
      thinking,
      messages: [...messages, { role: 'assistant', content: first.content }, { role: 'user', content: 'and now?' }],
    });
    expect(whole.content[0]).toMatchObject({ type: 'thinking', thinking: 'thinking about: and now?' });
    // The fake refuses reasoning sent back on a message, as DeepSeek does: it never got any.
    expect(JSON.stringify(calls[1]!.body.messages)).not.toContain('thinking about: think about it');
  });

  test("keep-alive comments before a slow upstream's first event do not disturb the SDK", async () => {
    h.fleet.fakes.anthropic!.queue({ latencyMs: 150 });
    const final = await byKey.messages
      .stream({ model: SONNET, max_tokens: 100, messages: [{ role: 'user', content: 'slowly now' }] })
      .finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'echo: slowly now' }]);
  });

  test('models.list answers in Anthropic shape', async () => {
    const page = await byKey.models.list();
    expect(page.data.map((m) => m.id)).toContain('anthropic/claude-sonnet-4.5');
    expect(page.data[0]).toMatchObject({
      type: 'model',
      display_name: expect.any(String),
      created_at: expect.any(String),
    });
  });
});
