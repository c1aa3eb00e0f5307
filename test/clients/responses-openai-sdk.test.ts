/**
 * Issue 57 (the Responses door), "Tests": the official `openai` client's `responses.create` and
 * `responses.stream` against the gateway over fake upstreams of every way the door answers
 * (OpenAI's own Responses API passed through, OpenAI chat completions and Anthropic Messages
 * translated): a plain answer, the stream's text deltas and final response, a function-call
 * round trip, `text.format` json_schema, and a custom tool (Codex's `apply_patch` kind) round trip.
 * Each test checks what the client returned and what the gateway recorded for that generation.
 */
import OpenAI from 'openai';
import type { FunctionTool, CustomTool, ResponseInputItem } from 'openai/resources/responses/responses';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { until } from '../helpers/eventually';
import type { UsageEvent } from '../../src/usage/types';

const MINI = 'openai/gpt-4.1-mini';
const SONNET = 'anthropic/claude-sonnet-4';
/** Per-token prices (config/chat-models.yaml, USD per 1M). */
const PRICES = { [MINI]: { prompt: 0.4e-6, completion: 1.6e-6 }, [SONNET]: { prompt: 3e-6, completion: 15e-6 } };

/** The gateway's extension of the Responses usage. */
type Costed = { usage?: { cost?: number; input_tokens: number; output_tokens: number } | null };

const weather: FunctionTool = {
  type: 'function',
  name: 'weather',
  description: 'The weather in a place',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  strict: false,
};
const applyPatch: CustomTool = {
  type: 'custom',
  name: 'apply_patch',
  description: 'Apply a patch to the workspace',
  format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch" /(.|\\n)*/ "*** End Patch"' },
};

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

/** The one usage event `h` recorded for response `id` (`resp_` + the generation id). */
async function recordedBy(h: GatewayHarness, id: string): Promise<UsageEvent> {
  const gen = id.replace(/^resp_/, '');
  await until('the usage record', () => h.events.some((e) => e.id === gen));
  const matching = h.events.filter((e) => e.id === gen);
  expect(matching).toHaveLength(1);
  return matching[0]!;
}

/** The cost the usage implies at `model`'s prices. */
function priced(model: typeof MINI | typeof SONNET, usage: Costed['usage']): number {
  return usage!.input_tokens * PRICES[model].prompt + usage!.output_tokens * PRICES[model].completion;
}

describe.each([
  ["OpenAI's own Responses API (passed through)", MINI, 'openai', true],
  ['an OpenAI chat-completions upstream (translated)', MINI, 'openai', false],
  ['an Anthropic-format upstream', SONNET, 'anthropic', true],
] as const)('openai responses over %s', (_name, model, fake, responses) => {
  // Each case its own gateway: OpenAI's fake serves `/responses` or, told it has none, chat completions only.
  let h: GatewayHarness;
  let client: OpenAI;
  beforeAll(async () => {
    h = await startGatewayHarness({ listen: true, providerExtras: { OPENAI: { responses } } });
    client = new OpenAI({ apiKey: h.key, baseURL: h.baseUrl, maxRetries: 0 });
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.fleet.resetAll();
    h.events.length = 0;
  });
  const recorded = (id: string) => recordedBy(h, id);
  const passedThrough = fake === 'openai' && responses;

  test('responses.create: output_text, usage with cost, the record (api_type responses)', async () => {
    const res = await client.responses.create({
      model,
      instructions: 'be brief',
      input: 'hello from responses',
      max_output_tokens: 100,
    });
    expect(res).toMatchObject({ object: 'response', status: 'completed', model });
    expect(res.id).toMatch(/^resp_gen-/);
    expect(res.output_text).toBe('echo: hello from responses');
    expect(res.output).toMatchObject([
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'echo: hello from responses' }] },
    ]);
    const usage = (res as Costed).usage!;
    expect(usage.cost).toBeCloseTo(priced(model, usage), 12);
    expect(res.usage?.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
    expect(await recorded(res.id)).toMatchObject({ apiType: 'responses', model, streamed: false, costUsd: usage.cost });
    const sent = h.fleet.fakes[fake]!.calls[0]!;
    expect(JSON.stringify(sent.body)).toContain('be brief');
    expect(sent.path.endsWith('/responses')).toBe(passedThrough);
  });

  test('responses.stream: text deltas, a final response equal to response.completed, usage with cost', async () => {
    const stream = client.responses.stream({ model, input: 'stream me some words' });
    const deltas: string[] = [];
    const types: string[] = [];
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    expect(deltas.join('')).toBe('echo: stream me some words');
    expect(final.output_text).toBe('echo: stream me some words');
    expect(final.status).toBe('completed');
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    const usage = (final as Costed).usage!;
    expect(usage.cost).toBeCloseTo(priced(model, usage), 12);
    expect(await recorded(final.id)).toMatchObject({ apiType: 'responses', streamed: true, costUsd: usage.cost });
  });

  test.each([false, true])('a function-call round trip (streamed: %s)', async (streamed) => {
    const input: ResponseInputItem[] = [{ role: 'user', content: 'weather in Paris' }];
    const first = streamed
      ? await client.responses.stream({ model, input, tools: [weather] }).finalResponse()
      : await client.responses.create({ model, input, tools: [weather] });
    const call = first.output.find((o) => o.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error(`expected a function call: ${JSON.stringify(first.output)}`);
    expect(call).toMatchObject({ name: 'weather', status: 'completed', call_id: expect.any(String) });
    expect(JSON.parse(call.arguments)).toEqual({ text: 'weather in Paris' });
    expect(await recorded(first.id)).toMatchObject({ toolCalls: 1, finishReason: 'tool_calls' });

    const second = await client.responses.create({
      model,
      tools: [weather],
      input: [...input, call, { type: 'function_call_output', call_id: call.call_id, output: 'sunny and 21C' }],
    });
    expect(second.output_text).toBe('result: sunny and 21C');
  });

  test.each([false, true])(
    'a custom tool round trip: custom_tool_call in, its output back (streamed: %s)',
    async (streamed) => {
      const input: ResponseInputItem[] = [{ role: 'user', content: '*** Begin Patch *** End Patch' }];
      const first = streamed
        ? await client.responses.stream({ model, input, tools: [applyPatch] }).finalResponse()
        : await client.responses.create({ model, input, tools: [applyPatch] });
      const call = first.output.find((o) => o.type === 'custom_tool_call');
      if (call?.type !== 'custom_tool_call')
        throw new Error(`expected a custom tool call: ${JSON.stringify(first.output)}`);
      expect(call).toMatchObject({ name: 'apply_patch', input: '*** Begin Patch *** End Patch' });
      const tools = h.fleet.fakes[fake]!.calls[0]!.body.tools;
      if (passedThrough) expect(tools).toEqual([applyPatch]);
      else {
        // Out as a function of one string argument whose description carries the grammar.
        const sent = JSON.stringify(tools);
        expect(sent).toContain('apply_patch');
        expect(sent).toContain('Begin Patch');
        expect(sent).toContain('"input"');
      }

      const second = await client.responses.create({
        model,
        tools: [applyPatch],
        input: [...input, call, { type: 'custom_tool_call_output', call_id: call.call_id, output: 'Done!' }],
      });
      expect(second.output_text).toBe('result: Done!');
      expect(await recorded(second.id)).toMatchObject({ apiType: 'responses', finishReason: 'stop' });
    },
  );
});

test('text.format json_schema reaches OpenAI as it was sent and the text parses', async () => {
  const schema = {
    type: 'object',
    properties: { echo: { type: 'string' } },
    required: ['echo'],
    additionalProperties: false,
  };
  const res = await client.responses.create({
    model: MINI,
    input: 'structured please',
    text: { format: { type: 'json_schema', name: 'echo', schema, strict: true } },
    provider: { only: ['openai'] },
  } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
  expect(JSON.parse(res.output_text)).toEqual({ echo: 'structured please' });
  expect(h.fleet.fakes.openai!.calls[0]!.body.text).toEqual({
    format: { type: 'json_schema', name: 'echo', strict: true, schema },
  });
});

test("reasoning reaches OpenAI's reasoning model as sent (its summary item comes back), and no model without reasoning", async () => {
  const reasoning = { effort: 'high', summary: 'auto' } as const;
  const include = ['reasoning.encrypted_content'] as OpenAI.Responses.ResponseIncludable[];
  const res = await client.responses.create({ model: 'openai/gpt-5.5', input: 'think', reasoning, include });
  expect(h.fleet.fakes.openai!.calls[0]!.body).toMatchObject({ reasoning, include });
  expect(res.usage?.output_tokens_details.reasoning_tokens).toBe(8);
  expect(res.output[0]).toMatchObject({
    type: 'reasoning',
    summary: [{ type: 'summary_text', text: 'thinking about: think' }],
    encrypted_content: 'enc_fake_rs_1',
  });
  expect(res.output_text).toBe('echo: think');
  await client.responses.create({ model: MINI, input: 'think', reasoning });
  expect(h.fleet.fakes.openai!.calls[1]!.body).not.toHaveProperty('reasoning');
});

test('an error before any answer is the envelope the client reads (error.message)', async () => {
  await expect(
    client.responses.create({ model: MINI, input: 'again', previous_response_id: 'resp_abc' }),
  ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('whole conversation') });
});
