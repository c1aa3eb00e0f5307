/**
 * Issue 59 item 3: Amazon Bedrock's Converse API as a chat wire format, through the gateway with
 * the `openai` client over the fake Bedrock wire (which verifies SigV4): whole and streamed
 * answers with usage and the catalog's cost, a Bedrock API key as a bearer token and AWS
 * credentials as a signature, a tool round trip, an image, Claude's reasoning (the budget sent,
 * the signed reasoning returned and sent back), each fault before the first byte and in the
 * stream, fallback to an OpenAI-format endpoint, and the Messages and Responses doors.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import request from 'supertest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { BEDROCK_KEY } from '../fakes/providers';
import { bedrockError, exceptionFrame, BEDROCK_SIGNATURE, BEDROCK_TOOL_ID, FAKE_AWS } from '../fakes/bedrock-wire';
import { bearer } from '../helpers/gateway';
import { drain, readUntilFailure, recordedOnce, statusOf, weather, type Extensions } from '../helpers/openai-client';
import { until } from '../helpers/eventually';
import { tempDir } from '../helpers/temp-dir';
import { fromRoot } from '../../src/paths';

/** A Claude model served by Bedrock only, and one served by Bedrock first, then an OpenAI-format endpoint. */
const CLAUDE = 'test/bedrock-claude';
const MIXED = 'test/bedrock-mixed';
const CLAUDE_ID = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const PRICE = { prompt: 3e-6, completion: 15e-6, cacheRead: 0.3e-6 };

function catalogFile(): string {
  const chat = parseYaml(readFileSync(fromRoot('config', 'chat-models.yaml'), 'utf8')) as { models: unknown[] };
  const claude = {
    provider: 'amazon-bedrock',
    upstream_model: CLAUDE_ID,
    pricing: { prompt: '3', completion: '15', input_cache_read: '0.3', input_cache_write: '3.75' },
    input_modalities: ['text', 'image', 'file'],
    supported_parameters: [
      'tools',
      'tool_choice',
      'stop',
      'temperature',
      'top_p',
      'top_k',
      'max_tokens',
      'reasoning',
      'include_reasoning',
    ],
    thinking: 'budget',
  };
  chat.models.push(
    { id: CLAUDE, name: 'Test: Claude on Bedrock', created: 1767225600, context_length: 200000, endpoints: [claude] },
    {
      id: MIXED,
      name: 'Test: Bedrock then OpenAI',
      created: 1767225600,
      context_length: 32000,
      endpoints: [
        { ...claude, pricing: { prompt: '0.5', completion: '0.5' } },
        {
          provider: 'openai',
          upstream_model: 'gpt-mixed',
          pricing: { prompt: '1', completion: '1' },
          input_modalities: ['text', 'image'],
        },
      ],
    },
  );
  const file = path.join(tempDir('sy-bedrock-'), 'chat-models.yaml');
  writeFileSync(file, toYaml(chat));
  return file;
}

interface ReasoningMessage {
  reasoning?: string | null;
  reasoning_details?: Array<Record<string, unknown>>;
}

let h: GatewayHarness;
let client: OpenAI;
beforeAll(async () => {
  h = await startGatewayHarness({
    listen: true,
    providerExtras: BEDROCK_KEY,
    overrides: { catalog: { chatModelsFile: catalogFile() }, breaker: { failureThreshold: 1000 } },
  });
  client = new OpenAI({ apiKey: h.key, baseURL: h.baseUrl, maxRetries: 0 });
});
afterAll(() => h.close());
beforeEach(() => {
  h.fleet.resetAll();
  h.events.length = 0;
});

const bedrock = () => h.fleet.fakes['amazon-bedrock']!;
const modelPath = (id: string, op: string) => `/model/${encodeURIComponent(id)}/${op}`;

describe('whole and streamed answers', () => {
  test('system and user: the Converse body sent with the bearer key, the answer, usage with cache reads, the cost', async () => {
    const res = await client.chat.completions.create({
      model: CLAUDE,
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }] },
        { role: 'user', content: 'hello from bedrock' },
      ] as OpenAI.ChatCompletionMessageParam[],
      temperature: 0.5,
      top_p: 0.9,
      stop: ['END'],
      max_tokens: 200,
    });
    expect(res.choices[0]).toMatchObject({
      message: { role: 'assistant', content: 'echo: hello from bedrock' },
      finish_reason: 'stop',
    });
    const ext = res as unknown as Extensions;
    expect(ext.provider).toBe('Amazon Bedrock');
    expect(res.usage).toMatchObject({
      prompt_tokens: 5,
      completion_tokens: 4,
      prompt_tokens_details: { cached_tokens: 2 },
    });
    expect(ext.usage.cost).toBeCloseTo(3 * PRICE.prompt + 2 * PRICE.cacheRead + 4 * PRICE.completion, 12);
    const call = bedrock().calls[0]!;
    expect(call.path).toBe(modelPath(CLAUDE_ID, 'converse'));
    expect(call.headers.authorization).toBe('Bearer test-key-amazon-bedrock');
    expect(call.body).toEqual({
      messages: [{ role: 'user', content: [{ text: 'hello from bedrock' }] }],
      system: [{ text: 'be brief' }, { cachePoint: { type: 'default' } }],
      inferenceConfig: { maxTokens: 200, temperature: 0.5, topP: 0.9, stopSequences: ['END'] },
    });
    expect(recordedOnce(h.events, res.id)).toMatchObject({
      model: CLAUDE,
      provider: 'Amazon Bedrock',
      tokensPrompt: 5,
      tokensCompletion: 4,
      costUsd: ext.usage.cost,
      finishReason: 'stop',
      nativeFinishReason: 'end_turn',
    });
  });

  test('a stream: the event-stream frames as chunks in order, the usage chunk with the cost, the record', async () => {
    const chunks = await drain(
      await client.chat.completions.create({
        model: CLAUDE,
        messages: [{ role: 'user', content: 'stream this please' }],
        stream: true,
      }),
    );
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('echo: stream this please');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('stop');
    const last = chunks.at(-1) as unknown as Extensions;
    expect(last.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4 });
    expect(last.usage.cost).toBeCloseTo(3 * PRICE.prompt + 4 * PRICE.completion, 12);
    expect(bedrock().calls[0]!.path).toBe(modelPath(CLAUDE_ID, 'converse-stream'));
    await until('the usage record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({ streamed: true, status: 'ok', tokensCompletion: 4, costUsd: last.usage.cost });
  });

  test('the shipped catalog: Claude Sonnet 4.5 on Bedrock through its global inference profile, at its price', async () => {
    const res = await client.chat.completions.create({
      model: 'anthropic/claude-sonnet-4.5',
      messages: [{ role: 'user', content: 'hi there' }],
      provider: { only: ['amazon-bedrock'] },
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect((res as unknown as Extensions).provider).toBe('Amazon Bedrock');
    expect(bedrock().calls[0]!.path).toBe(modelPath('global.anthropic.claude-sonnet-4-5-20250929-v1:0', 'converse'));
    expect((res as unknown as Extensions).usage.cost).toBeCloseTo(2 * 3e-6 + 3 * 15e-6, 12);
  });

  test('an image as a data URL goes as bytes; a remote URL, which Converse cannot take, leaves Bedrock out', async () => {
    const png = Buffer.from('fake png bytes').toString('base64');
    const content = (url: string) => [
      { type: 'text' as const, text: 'what is this' },
      { type: 'image_url' as const, image_url: { url } },
    ];
    await client.chat.completions.create({
      model: CLAUDE,
      messages: [{ role: 'user', content: content(`data:image/png;base64,${png}`) }],
    });
    expect(bedrock().calls[0]!.body.messages).toEqual([
      { role: 'user', content: [{ text: 'what is this' }, { image: { format: 'png', source: { bytes: png } } }] },
    ]);
    const refused = await statusOf(
      client.chat.completions.create({
        model: CLAUDE,
        messages: [{ role: 'user', content: content('https://example.com/cat.png') }],
      }),
    );
    expect(refused).toBe(400);
    const mixed = await client.chat.completions.create({
      model: MIXED,
      messages: [{ role: 'user', content: content('https://example.com/cat.png') }],
    });
    expect((mixed as unknown as Extensions).provider).toBe('OpenAI');
    expect(bedrock().calls).toHaveLength(1);
  });

  test('a PDF file part goes as a document block, its name cleaned to what Bedrock allows', async () => {
    const pdf = Buffer.from('%PDF-1.4 fake').toString('base64');
    await client.chat.completions.create({
      model: CLAUDE,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'summarise' },
            { type: 'file', file: { filename: 'q3_report.v2.pdf', file_data: `data:application/pdf;base64,${pdf}` } },
          ],
        },
      ],
    });
    expect(bedrock().calls[0]!.body.messages).toEqual([
      {
        role: 'user',
        content: [{ text: 'summarise' }, { document: { format: 'pdf', name: 'q3 report v2', source: { bytes: pdf } } }],
      },
    ]);
  });

  test('a JSON response format, which Converse has no form for, is a 400 on a Bedrock-only model', async () => {
    const err = await statusOf(
      client.chat.completions.create({
        model: CLAUDE,
        messages: [{ role: 'user', content: 'json' }],
        response_format: { type: 'json_object' },
      }),
    );
    expect(err).toBe(400);
    expect(bedrock().calls).toHaveLength(0);
  });
});

describe('AWS Signature V4', () => {
  let signed: GatewayHarness;
  beforeAll(async () => {
    signed = await startGatewayHarness({
      overrides: {
        catalog: { chatModelsFile: catalogFile() },
        aws: { ...FAKE_AWS, region: null },
      },
    });
  });
  afterAll(() => signed.close());

  test('without a Bedrock key the request is signed (service bedrock, us-east-1) and the fake accepts it, whole and streamed', async () => {
    const ask = (stream: boolean) =>
      request(signed.gw.app)
        .post('/api/v1/chat/completions')
        .set('Authorization', bearer(signed.key))
        .send({ model: CLAUDE, stream, messages: [{ role: 'user', content: 'signed hello' }] });
    const whole = await ask(false);
    expect(whole.status).toBe(200);
    expect(whole.body.choices[0].message.content).toBe('echo: signed hello');
    const streamed = await ask(true);
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('"content":"echo: "');
    const calls = signed.fleet.fakes['amazon-bedrock']!.calls;
    expect(calls).toHaveLength(2);
    for (const c of calls) {
      expect(String(c.headers.authorization)).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIAFAKEBEDROCK00001\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=/,
      );
      expect(c.headers['x-amz-security-token']).toBe(FAKE_AWS.sessionToken);
    }
  });
});

describe('tools and reasoning', () => {
  test('a tool round trip: toolSpec, the toolUse as a tool call, the result as a toolResult', async () => {
    const first = await client.chat.completions.create({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'weather in Paris' }],
      tools: weather,
      tool_choice: 'required',
    });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const call = first.choices[0]!.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(call).toMatchObject({ id: BEDROCK_TOOL_ID, function: { name: 'weather' } });
    expect(JSON.parse(call.function.arguments)).toEqual({ text: 'weather in Paris' });
    expect(bedrock().calls[0]!.body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'weather',
            description: 'The weather in a place',
            inputSchema: { json: (weather[0] as { function: { parameters: unknown } }).function.parameters },
          },
        },
      ],
      toolChoice: { any: {} },
    });
    const second = await client.chat.completions.create({
      model: CLAUDE,
      tools: weather,
      messages: [
        { role: 'user', content: 'weather in Paris' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: 'sunny and 21C' },
      ],
    });
    expect(second.choices[0]).toMatchObject({ message: { content: 'result: sunny and 21C' }, finish_reason: 'stop' });
    expect((bedrock().calls[1]!.body.messages as unknown[]).slice(1)).toEqual([
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: BEDROCK_TOOL_ID, name: 'weather', input: { text: 'weather in Paris' } } }],
      },
      { role: 'user', content: [{ toolResult: { toolUseId: BEDROCK_TOOL_ID, content: [{ text: 'sunny and 21C' }] } }] },
    ]);
  });

  test('a streamed tool call: its id and name first, the arguments in pieces', async () => {
    const chunks = await drain(
      await client.chat.completions.create({
        model: CLAUDE,
        messages: [{ role: 'user', content: 'weather in Lima' }],
        tools: weather,
        stream: true,
      }),
    );
    const calls = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, id: BEDROCK_TOOL_ID, function: { name: 'weather' } });
    expect(JSON.parse(calls.map((c) => c.function?.arguments ?? '').join(''))).toEqual({ text: 'weather in Lima' });
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  test("reasoning: the effort as Claude's thinking budget, the signed reasoning returned and sent back unchanged", async () => {
    const messages = [{ role: 'user' as const, content: 'think about Rome' }];
    const first = await client.chat.completions.create({
      model: CLAUDE,
      messages,
      max_tokens: 4000,
      reasoning_effort: 'high',
      temperature: 0.3,
    });
    expect(bedrock().calls[0]!.body).toMatchObject({
      inferenceConfig: { maxTokens: 4000 },
      additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 3200 } },
    });
    // Claude takes no temperature while it thinks.
    expect(bedrock().calls[0]!.body.inferenceConfig).toEqual({ maxTokens: 4000 });
    const message = first.choices[0]!.message as (typeof first.choices)[0]['message'] & ReasoningMessage;
    expect(message.reasoning).toBe('thinking about: think about Rome');
    expect(message.reasoning_details).toEqual([
      {
        type: 'reasoning.text',
        text: 'thinking about: think about Rome',
        signature: BEDROCK_SIGNATURE,
        format: 'anthropic-claude-v1',
        index: 0,
      },
    ]);
    await client.chat.completions.create({
      model: CLAUDE,
      reasoning_effort: 'high',
      max_tokens: 4000,
      messages: [...messages, message, { role: 'user', content: 'and now?' }],
    });
    expect((bedrock().calls[1]!.body.messages as Array<{ content: unknown[] }>)[1]!.content[0]).toEqual({
      reasoningContent: { reasoningText: { text: 'thinking about: think about Rome', signature: BEDROCK_SIGNATURE } },
    });
  });

  test('streamed reasoning: reasoning deltas, then the text; a bound too small for a budget is a 400', async () => {
    const chunks = await drain(
      await client.chat.completions.create({
        model: CLAUDE,
        messages: [{ role: 'user', content: 'think then answer' }],
        reasoning_effort: 'medium',
        stream: true,
      }),
    );
    const deltas = chunks.map((c) => (c.choices[0]?.delta ?? {}) as ReasoningMessage & { content?: string | null });
    expect(deltas.map((d) => d.reasoning ?? '').join('')).toBe('thinking about: think then answer');
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('echo: think then answer');
    const small = await statusOf(
      client.chat.completions.create({
        model: CLAUDE,
        messages: [{ role: 'user', content: 'x' }],
        reasoning_effort: 'low',
        max_tokens: 500,
      }),
    );
    expect(small).toBe(400);
  });
});

describe('faults and fallback', () => {
  const messages = [{ role: 'user' as const, content: 'hello there' }];
  const ask = (model: string) => client.chat.completions.create({ model, messages });
  const askStream = (model: string) => client.chat.completions.create({ model, messages, stream: true });

  test.each([
    ['ThrottlingException → 429', bedrockError(429, 'ThrottlingException', 'Too many requests'), 429],
    ['ModelNotReadyException → 503', bedrockError(429, 'ModelNotReadyException', 'Model is not ready'), 503],
    ['ServiceUnavailableException → 529', bedrockError(503, 'ServiceUnavailableException', 'Unavailable'), 529],
    ['ModelTimeoutException → 524', bedrockError(408, 'ModelTimeoutException', 'Timed out'), 524],
    ['InternalServerException → 502', bedrockError(500, 'InternalServerException', 'Internal'), 502],
    ['ValidationException → 400', bedrockError(400, 'ValidationException', 'Malformed input'), 400],
  ])('%s, whole and streamed, before the first byte', async (_name, fault, status) => {
    bedrock().setSticky(fault);
    expect(await statusOf(ask(CLAUDE))).toBe(status);
    expect(await statusOf(askStream(CLAUDE).then(drain))).toBe(status);
  });

  test('an in-stream throttlingException before any content is a 429', async () => {
    bedrock().setSticky({ errorAfterEvents: 1, event: exceptionFrame('throttlingException', 'slow down') as never });
    expect(await statusOf(askStream(CLAUDE).then(drain))).toBe(429);
  });

  test.each([
    ['a cut connection', { cutAfterEvents: 3 }],
    ['an in-stream exception', { errorAfterEvents: 3 }],
  ])(
    '%s after the first content: the stream ends with the error, the tokens generated are recorded',
    async (_n, fault) => {
      bedrock().setSticky(fault);
      const { seen, failed } = await readUntilFailure(await askStream(CLAUDE));
      expect(failed).toBeInstanceOf(Error);
      expect(seen).toMatch(/^echo: /);
      await until('the usage record', () => h.events.length === 1);
      expect(h.events[0]).toMatchObject({ status: 'error', finishReason: 'error', streamed: true });
      expect(h.events[0]!.tokensCompletion).toBeGreaterThan(0);
    },
  );

  test('fallback across formats: Bedrock overloaded, then throttled; the OpenAI-format endpoint answers', async () => {
    bedrock().queue(
      bedrockError(503, 'ServiceUnavailableException', 'Unavailable'),
      bedrockError(429, 'ThrottlingException', 'Too many requests'),
    );
    const whole = await ask(MIXED);
    expect((whole as unknown as Extensions).provider).toBe('OpenAI');
    const chunks = await drain(await askStream(MIXED));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('echo: hello there');
    expect(bedrock().calls).toHaveLength(2);
    expect(h.fleet.fakes.openai!.calls.map((c) => c.body.model)).toEqual(['gpt-mixed', 'gpt-mixed']);
  });
});

describe('the other doors on a Bedrock model', () => {
  test('POST /messages: the Anthropic shape from a Converse answer, whole and streamed', async () => {
    const send = (stream: boolean) =>
      request(h.gw.app)
        .post('/api/v1/messages')
        .set('Authorization', bearer(h.key))
        .send({
          model: CLAUDE,
          max_tokens: 100,
          stream,
          system: 'be brief',
          messages: [{ role: 'user', content: 'hello messages' }],
        });
    const res = await send(false);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'echo: hello messages' }],
      stop_reason: 'end_turn',
      usage: { output_tokens: 3 },
    });
    expect(bedrock().calls[0]!.body).toMatchObject({
      system: [{ text: 'be brief' }],
      inferenceConfig: { maxTokens: 100 },
    });
    const streamed = await send(true);
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('event: message_stop');
    expect(streamed.text).toContain('"text":"echo: "');
  });

  test('POST /responses: the Responses shape from a Converse answer', async () => {
    const res = await request(h.gw.app)
      .post('/api/v1/responses')
      .set('Authorization', bearer(h.key))
      .send({ model: CLAUDE, input: 'hello responses' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'response', status: 'completed' });
    const texts = (res.body.output as Array<{ content?: Array<{ text?: string }> }>).flatMap((o) => o.content ?? []);
    expect(texts.map((c) => c.text).join('')).toBe('echo: hello responses');
    expect(bedrock().calls[0]!.path).toBe(modelPath(CLAUDE_ID, 'converse'));
  });
});
