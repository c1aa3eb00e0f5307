/**
 * Issue 42, "Tests": the Vercel AI SDK (`ai`) through `@ai-sdk/openai-compatible` against the
 * gateway over fake upstreams (driver: chat-ai-sdk.mjs, in a child process): `generateText` and
 * `streamText`, plain and with a tool the SDK runs in a multi-step loop, and the Anthropic route.
 * Each test checks what the SDK returned and the gateway's record of each step.
 */
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import type { UsageEvent } from '../../src/usage/types';
import { runDriver } from './run-driver';

const MINI = 'openai/gpt-4o-mini';
const LLAMA = 'meta-llama/llama-3.3-70b-instruct';
const HAIKU = 'anthropic/claude-3.5-haiku';

interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}
interface Step {
  text: string;
  finishReason: string;
  toolCalls: Array<{ toolName: string; toolCallId: string; input: unknown }>;
  toolResults: Array<{ toolName: string; output: unknown }>;
  response: { id: string };
}
interface Generation {
  text: string;
  finishReason: string;
  usage: Usage;
  totalUsage: Usage;
  response: { id: string; modelId: string };
  steps: Step[];
  /** streamText: the text stream's pieces. */
  pieces?: string[];
  error?: { name: string; message: string };
}
interface DriverOutput {
  generate: Generation;
  generateTools: Generation;
  stream: Generation;
  streamTools: Generation;
  anthropic: Generation;
}

let h: GatewayHarness;
let out: DriverOutput;
beforeAll(async () => {
  h = await startGatewayHarness({ listen: true });
  out = await runDriver<DriverOutput>('chat-ai-sdk.mjs', h.baseUrl as string, h.key);
});
afterAll(() => h.close());

/** The one usage event recorded for generation `id`. */
function recorded(id: string): UsageEvent {
  const matching = h.events.filter((e) => e.id === id);
  expect(matching).toHaveLength(1);
  return matching[0]!;
}
/** The streamed records of `model`, oldest first (the SDK does not expose a stream's generation id: see below). */
const streamedRecords = (model: string) => h.events.filter((e) => e.streamed && e.model === model);

test('generateText: text, finish reason, usage, the generation id and model as the response’s', () => {
  const g = out.generate;
  expect(g.error).toBeUndefined();
  expect(g).toMatchObject({
    text: 'echo: hello from the ai sdk',
    finishReason: 'stop',
    usage: { inputTokens: 7, outputTokens: 6, totalTokens: 13 },
    response: { id: expect.stringMatching(/^gen-/), modelId: MINI },
  });
  expect(recorded(g.response.id)).toMatchObject({
    model: MINI,
    provider: 'OpenAI',
    streamed: false,
    tokensPrompt: 7,
    tokensCompletion: 6,
    finishReason: 'stop',
  });
  expect(h.fleet.fakes.openai!.calls[0]!.body.messages).toEqual([
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hello from the ai sdk' },
  ]);
});

test('generateText with a tool: the SDK runs the call the gateway returned, sends the result, and gets the answer; one record per step', () => {
  const g = out.generateTools;
  expect(g.error).toBeUndefined();
  expect(g.steps).toHaveLength(2);
  const [call, answer] = g.steps as [Step, Step];
  expect(call).toMatchObject({
    finishReason: 'tool-calls',
    toolCalls: [{ toolName: 'weather', input: { text: 'weather in Porto' } }],
    toolResults: [{ toolName: 'weather', output: 'mild in Porto' }],
  });
  expect(answer).toMatchObject({ text: 'result: mild in Porto', finishReason: 'stop' });
  expect(g.text).toBe('result: mild in Porto');
  expect(recorded(call.response.id)).toMatchObject({ model: LLAMA, toolCalls: 1, finishReason: 'tool_calls' });
  const last = recorded(answer.response.id);
  expect(last).toMatchObject({ model: LLAMA, toolCalls: 0, finishReason: 'stop' });
  // totalUsage adds the steps up, as the two records do.
  const first = recorded(call.response.id);
  expect(g.totalUsage).toMatchObject({
    inputTokens: first.tokensPrompt + last.tokensPrompt,
    outputTokens: first.tokensCompletion + last.tokensCompletion,
  });
});

test('streamText: the text stream piece by piece, usage from the last chunk, one streamed record', () => {
  const g = out.stream;
  expect(g.error).toBeUndefined();
  expect(g.pieces).toEqual(['echo: ', 'stream ', 'from ', 'the ', 'ai ', 'sdk']);
  expect(g).toMatchObject({
    text: 'echo: stream from the ai sdk',
    finishReason: 'stop',
    usage: { inputTokens: 5, outputTokens: 6, totalTokens: 11 },
  });
  expect(streamedRecords(MINI)).toEqual([
    expect.objectContaining({ provider: 'OpenAI', tokensPrompt: 5, tokensCompletion: 6, finishReason: 'stop' }),
  ]);
  // The upstream was asked for its usage chunk.
  expect(h.fleet.fakes.openai!.calls.find((c) => c.body.stream === true)!.body.stream_options).toEqual({
    include_usage: true,
  });
});

test('streamText with a tool: the streamed call runs, its result goes back, the answer streams; one streamed record per step', () => {
  const g = out.streamTools;
  expect(g.error).toBeUndefined();
  expect(g.steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
  expect(g.steps[0]).toMatchObject({
    toolCalls: [{ toolName: 'weather', input: { text: 'weather in Braga' } }],
    toolResults: [{ output: 'mild in Braga' }],
  });
  expect(g.pieces?.join('')).toBe('result: mild in Braga');
  expect(g.totalUsage).toMatchObject({ inputTokens: 9, outputTokens: 7 });
  const records = streamedRecords(LLAMA);
  expect(records.map((e) => [e.toolCalls, e.finishReason])).toEqual([
    [1, 'tool_calls'],
    [0, 'stop'],
  ]);
  expect(records.reduce((n, e) => n + e.tokensPrompt, 0)).toBe(9);
});

test('generateText on the Anthropic route', () => {
  const g = out.anthropic;
  expect(g.error).toBeUndefined();
  expect(g).toMatchObject({
    text: 'echo: hello claude from the ai sdk',
    finishReason: 'stop',
    usage: { inputTokens: 6, outputTokens: 7 },
    response: { modelId: HAIKU },
  });
  expect(recorded(g.response.id)).toMatchObject({
    model: HAIKU,
    provider: 'Anthropic',
    tokensPrompt: 6,
    tokensCompletion: 7,
  });
});

// Known defect (see chat-openai.test.ts): the SDK takes a stream's response id and model from its
// first chunk, which still carries the upstream's (`chatcmpl-…`, the upstream's model name).
// `failing` until fixed.
test('streamText: the response id and model are the generation’s', () => {
  expect(out.stream.response).toEqual({ id: streamedRecords(MINI)[0]!.id, modelId: MINI });
});
