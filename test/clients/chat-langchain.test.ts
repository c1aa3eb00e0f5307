/**
 * Issue 42, "Tests": LangChain JS's `ChatOpenAI` pointed at the gateway (`configuration.baseURL`)
 * over fake upstreams (driver: chat-langchain.mjs, in a child process): `invoke`, `stream`,
 * `bindTools` with the tool call parsed from a whole and a streamed answer and the tool result
 * sent back, and the Anthropic route. Each test checks what LangChain built and the gateway's
 * record of that call.
 */
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import type { UsageEvent } from '../../src/usage/types';
import { runDriver } from './run-driver';

const MINI = 'openai/gpt-4o-mini';
const LLAMA = 'meta-llama/llama-3.3-70b-instruct';
const HAIKU = 'anthropic/claude-3.5-haiku';

/** The plain fields of a LangChain AI message. */
interface Message {
  id: string | null;
  content: string;
  tool_calls: Array<{ name: string; args: Record<string, unknown>; id: string; type: string }>;
  usage_metadata: { input_tokens: number; output_tokens: number; total_tokens: number };
  response_metadata: { finish_reason: string; model_name: string; usage: { cost: number } };
}
interface Streamed {
  count: number;
  ids: Array<string | null>;
  message: Message;
}
type Failed = { error?: { name: string; message: string } };
interface DriverOutput {
  invoke: Message & Failed;
  stream: Streamed & Failed;
  tools: { first: Message; answer: Message } & Failed;
  streamTools: Streamed & Failed;
  anthropic: Message & Failed;
}

let h: GatewayHarness;
let out: DriverOutput;
beforeAll(async () => {
  h = await startGatewayHarness({ listen: true });
  out = await runDriver<DriverOutput>('chat-langchain.mjs', h.baseUrl as string, h.key);
});
afterAll(() => h.close());

/** The one usage event recorded for generation `id`. */
function recorded(id: string | null): UsageEvent {
  const matching = h.events.filter((e) => e.id === id);
  expect(matching).toHaveLength(1);
  return matching[0]!;
}
/** The one streamed record of `model` whose token counts are the message's (a LangChain stream does not expose the generation id: see below). */
function recordedStream(model: string, m: Message): UsageEvent {
  const matching = h.events.filter(
    (e) =>
      e.streamed &&
      e.model === model &&
      e.tokensPrompt === m.usage_metadata.input_tokens &&
      e.tokensCompletion === m.usage_metadata.output_tokens,
  );
  expect(matching).toHaveLength(1);
  return matching[0]!;
}

test('invoke: the answer, usage_metadata, the generation id as the message id, the cost in response_metadata', () => {
  expect(out.invoke.error).toBeUndefined();
  expect(out.invoke).toMatchObject({
    id: expect.stringMatching(/^gen-/),
    content: 'echo: hello from langchain',
    tool_calls: [],
    usage_metadata: { input_tokens: 5, output_tokens: 4, total_tokens: 9 },
    response_metadata: { finish_reason: 'stop', model_name: MINI },
  });
  expect(recorded(out.invoke.id)).toMatchObject({
    model: MINI,
    provider: 'OpenAI',
    streamed: false,
    tokensPrompt: 5,
    tokensCompletion: 4,
    costUsd: out.invoke.response_metadata.usage.cost,
  });
  // The system message went upstream as one.
  expect(h.fleet.fakes.openai!.calls[0]!.body.messages).toEqual([
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hello from langchain' },
  ]);
});

test('stream: chunks merge into the answer with usage_metadata from the last chunk; one streamed record', () => {
  expect(out.stream.error).toBeUndefined();
  expect(out.stream.count).toBeGreaterThanOrEqual(5);
  expect(out.stream.message).toMatchObject({
    content: 'echo: stream from langchain',
    usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
    response_metadata: { finish_reason: 'stop' },
  });
  expect(recordedStream(MINI, out.stream.message)).toMatchObject({
    provider: 'OpenAI',
    finishReason: 'stop',
    costUsd: out.stream.message.response_metadata.usage.cost,
  });
});

test('bindTools: the tool call parsed into tool_calls, the ToolMessage sent back, the answer built on it', () => {
  expect(out.tools.error).toBeUndefined();
  const { first, answer } = out.tools;
  expect(first.tool_calls).toEqual([
    { name: 'weather', args: { text: 'weather in Kyiv' }, id: expect.any(String), type: 'tool_call' },
  ]);
  expect(first.response_metadata.finish_reason).toBe('tool_calls');
  expect(answer).toMatchObject({
    content: 'result: cloudy',
    tool_calls: [],
    response_metadata: { finish_reason: 'stop' },
  });
  expect(recorded(first.id)).toMatchObject({
    model: LLAMA,
    toolCalls: 1,
    finishReason: 'tool_calls',
    costUsd: first.response_metadata.usage.cost,
  });
  expect(recorded(answer.id)).toMatchObject({ model: LLAMA, toolCalls: 0, finishReason: 'stop' });
  // The tool definition went upstream as OpenAI's, the result paired with the call's id.
  const sent = Object.values(h.fleet.fakes).flatMap((f) => f.calls.map((c) => c.body));
  const followUp = sent.find((b) => JSON.stringify(b.messages).includes('cloudy'))!;
  expect(followUp.tools).toEqual([
    expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'weather' }) }),
  ]);
  expect((followUp.messages as unknown[]).at(-1)).toEqual({
    role: 'tool',
    tool_call_id: first.tool_calls[0]!.id,
    content: 'cloudy',
  });
});

test('bindTools with stream: tool-call chunks merge into a parsed tool call', () => {
  expect(out.streamTools.error).toBeUndefined();
  expect(out.streamTools.message.tool_calls).toEqual([
    { name: 'weather', args: { text: 'weather in Lviv' }, id: 'call_fake_1', type: 'tool_call' },
  ]);
  expect(out.streamTools.message.response_metadata.finish_reason).toBe('tool_calls');
  expect(recordedStream(LLAMA, out.streamTools.message)).toMatchObject({ toolCalls: 1, finishReason: 'tool_calls' });
});

test('invoke on the Anthropic route', () => {
  expect(out.anthropic.error).toBeUndefined();
  expect(out.anthropic).toMatchObject({
    content: 'echo: hello claude',
    usage_metadata: { input_tokens: 2, output_tokens: 3 },
    response_metadata: { finish_reason: 'stop', model_name: HAIKU },
  });
  expect(recorded(out.anthropic.id)).toMatchObject({
    model: HAIKU,
    provider: 'Anthropic',
    costUsd: out.anthropic.response_metadata.usage.cost,
  });
});

// Known defect (see chat-openai.test.ts): a stream's chunks keep the upstream's id and model, and
// LangChain takes the message id and model_name from them (its usage chunk has no id), so a
// LangChain app cannot find the generation of a streamed answer. `failing` until fixed.
test('stream: the merged message carries the generation id and the catalog model', () => {
  expect(out.stream.message.id).toMatch(/^gen-/);
  expect(out.stream.message.response_metadata.model_name).toBe(MINI);
  expect(recorded(out.stream.message.id)).toMatchObject({ model: MINI, streamed: true });
});
