/**
 * Issue 42, "Tests": the `@openrouter/sdk`'s `chat.send`, whole and streamed, against the gateway
 * over fake upstreams (driver: chat-openrouter-sdk.mjs, in a child process as the SDK is
 * ESM-only). The SDK parses every answer and chunk with its own schemas, so these tests fail on a
 * field the gateway leaves out or types wrongly; each also checks the gateway's record.
 */
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import type { UsageEvent } from '../../src/usage/types';
import { runDriver } from './run-driver';
import { FAKE_SIGNATURE } from '../fakes/chat-wires';

const LLAMA = 'meta-llama/llama-3.3-70b-instruct';
const HAIKU = 'anthropic/claude-3.5-haiku';

/** A chat answer as the SDK parsed it (camelCase). */
interface SdkResult {
  id: string;
  model: string;
  systemFingerprint: string | null;
  choices: Array<{
    finishReason: string;
    message: {
      role: string;
      content: string | null;
      toolCalls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    };
  }>;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number; cost: number; isByok: boolean };
}
/** A stream chunk as the SDK parsed it. */
interface SdkChunk {
  id: string;
  model: string;
  choices: Array<{ finishReason: string | null; delta: { content?: string | null } }>;
  usage?: SdkResult['usage'];
}
type Failed = { error?: { name: string; issues: string[] } };
interface DriverOutput {
  plain: SdkResult & Failed;
  tools: { first: SdkResult; second: SdkResult } & Failed;
  json: SdkResult & Failed;
  stream: SdkChunk[] & Failed;
  anthropicStream: SdkChunk[] & Failed;
  notFound: unknown;
  reasoning: SdkReasoning & Failed;
  reasoningStream: Array<{ choices: Array<{ delta: SdkReasoning['choices'][number]['message'] }> }> & Failed;
}
/** A reasoning answer as the SDK parsed it. */
interface SdkReasoning {
  choices: Array<{
    message: {
      content?: string | null;
      reasoning?: string | null;
      reasoningDetails?: Array<{ type: string; text?: string; signature?: string | null; format?: string }>;
    };
  }>;
}

let h: GatewayHarness;
let out: DriverOutput;
beforeAll(async () => {
  h = await startGatewayHarness({ listen: true });
  out = await runDriver<DriverOutput>('chat-openrouter-sdk.mjs', h.baseUrl as string, h.key);
});
afterAll(() => h.close());

/** The one usage event recorded for generation `id`. */
function recorded(id: string): UsageEvent {
  const matching = h.events.filter((e) => e.id === id);
  expect(matching).toHaveLength(1);
  return matching[0]!;
}
const contentOf = (chunks: SdkChunk[]) => chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');

test('chat.send: a whole answer parses; provider preferences route it; usage with cost matches the record', () => {
  expect(out.plain.error).toBeUndefined();
  expect(out.plain).toMatchObject({
    id: expect.stringMatching(/^gen-/),
    model: LLAMA,
    systemFingerprint: 'fp_fake',
    choices: [{ finishReason: 'stop', message: { role: 'assistant', content: 'echo: hello from openrouter' } }],
    usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7, isByok: false },
  });
  // provider.order ['groq'] without fallbacks: Groq served it, at Groq's price.
  expect(recorded(out.plain.id)).toMatchObject({
    provider: 'Groq',
    model: LLAMA,
    costUsd: out.plain.usage.cost,
    tokensPrompt: 3,
    tokensCompletion: 4,
    streamed: false,
  });
  expect(h.fleet.fakes.groq!.calls.map((c) => c.body.messages)).toContainEqual([
    { role: 'user', content: 'hello from openrouter' },
  ]);
});

test('chat.send: a tool-call round trip, the call parsed, the result answered', () => {
  expect(out.tools.error).toBeUndefined();
  const { first, second } = out.tools;
  const call = first.choices[0]!.message.toolCalls![0]!;
  expect(first.choices[0]!.finishReason).toBe('tool_calls');
  expect(call.function.name).toBe('weather');
  expect(JSON.parse(call.function.arguments)).toEqual({ text: 'weather in Rome' });
  expect(second.choices[0]).toMatchObject({ finishReason: 'stop', message: { content: 'result: warm' } });
  expect(recorded(first.id)).toMatchObject({ toolCalls: 1, finishReason: 'tool_calls', costUsd: first.usage.cost });
  expect(recorded(second.id)).toMatchObject({ toolCalls: 0, finishReason: 'stop', costUsd: second.usage.cost });
});

test('chat.send: responseFormat json_schema goes out as response_format and the content parses as JSON', () => {
  expect(out.json.error).toBeUndefined();
  expect(JSON.parse(out.json.choices[0]!.message.content ?? '')).toEqual({ echo: 'as json' });
  expect(h.fleet.fakes.openai!.calls[0]!.body.response_format).toMatchObject({
    type: 'json_schema',
    json_schema: { name: 'echo', strict: true },
  });
  expect(recorded(out.json.id)).toMatchObject({
    model: 'openai/gpt-4o',
    provider: 'OpenAI',
    costUsd: out.json.usage.cost,
  });
});

test('chat.send stream from Anthropic: every chunk parses, the content and the usage chunk with cost arrive, one streamed record', () => {
  expect(out.anthropicStream.error).toBeUndefined();
  expect(contentOf(out.anthropicStream)).toBe('echo: stream from claude');
  expect(out.anthropicStream.flatMap((c) => c.choices.map((ch) => ch.finishReason)).filter(Boolean)).toEqual(['stop']);
  const last = out.anthropicStream[out.anthropicStream.length - 1]!;
  expect(last).toMatchObject({
    id: expect.stringMatching(/^gen-/),
    model: HAIKU,
    choices: [],
    usage: { completionTokens: 4, isByok: false },
  });
  expect(recorded(last.id)).toMatchObject({
    model: HAIKU,
    provider: 'Anthropic',
    streamed: true,
    costUsd: last.usage!.cost,
    tokensCompletion: 4,
  });
});

// Known defect (src/providers/openai/chat-stream.ts): the gateway asks an OpenAI-compatible
// upstream for `stream_options.include_usage`, so the upstream writes `"usage": null` in every
// chunk (as OpenAI does), and the passthrough forwards it; the SDK's chunk schema accepts an
// object or nothing, so `chat.send` with `stream: true` fails on the first chunk with
// `data.usage: expected object, received null`. `failing` until fixed: then make it a plain test.
test('chat.send stream from an OpenAI-compatible upstream: every chunk parses and the usage chunk arrives', () => {
  expect(out.stream.error).toBeUndefined();
  expect(contentOf(out.stream)).toBe('echo: stream it please');
  const last = out.stream[out.stream.length - 1]!;
  expect(last.usage).toMatchObject({ promptTokens: 3, completionTokens: 4 });
  expect(recorded(last.id)).toMatchObject({ model: LLAMA, streamed: true, costUsd: last.usage!.cost });
});

test('chat.send of an unknown model: the SDK’s typed 404', () => {
  expect(out.notFound).toEqual({ name: 'NotFoundResponseError', statusCode: 404 });
});

test('chat.send with reasoning: the SDK reads message.reasoning and reasoningDetails (Claude signature) whole and streamed', () => {
  expect(out.reasoning.error).toBeUndefined();
  const message = out.reasoning.choices[0]!.message;
  expect(message.reasoning).toBe('thinking about: think it over');
  expect(message.reasoningDetails?.[0]).toMatchObject({
    type: 'reasoning.text',
    text: 'thinking about: think it over',
    signature: FAKE_SIGNATURE,
    format: 'anthropic-claude-v1',
  });
  expect(out.reasoningStream.error).toBeUndefined();
  const deltas = out.reasoningStream.flatMap((c) => c.choices.map((ch) => ch.delta));
  expect(deltas.map((d) => d.reasoning ?? '').join('')).toBe(message.reasoning);
  expect(deltas.flatMap((d) => d.reasoningDetails ?? []).some((d) => d.signature === FAKE_SIGNATURE)).toBe(true);
});
