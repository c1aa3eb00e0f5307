/**
 * Issue 59 item 1: Gemini's generateContent as a chat wire format, through the gateway with the
 * `openai` client over the fake Gemini wire: whole and streamed answers with usage and the
 * catalog's cost, a tool round trip, an image, reasoning (the thinking control sent, thoughts and
 * signatures returned, the signature sent back reaching Gemini unchanged), each fault before the
 * first byte and in the stream, a safety block, fallback to an OpenAI-format endpoint, and the
 * Messages and Responses doors on a Gemini model.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import request from 'supertest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { geminiError, signatureOf } from '../fakes/gemini-chat-wire';
import { bearer } from '../helpers/gateway';
import { drain, readUntilFailure, recordedOnce, statusOf } from '../helpers/openai-client';
import { until } from '../helpers/eventually';
import { tempDir } from '../helpers/temp-dir';
import { fromRoot } from '../../src/paths';
import type { UsageEvent } from '../../src/usage/types';

const FLASH = 'google/gemini-2.5-flash';
const PRO = 'google/gemini-2.5-pro';
const G3 = 'google/gemini-3-flash-preview';
/** A test model served by Gemini first, then by an OpenAI-format endpoint. */
const MIXED = 'test/gemini-mixed';
/** Per-token prices (config/chat-models.yaml, USD per 1M). */
const FLASH_PRICE = { prompt: 0.3e-6, completion: 2.5e-6 };
const PRO_PRICE = { prompt: 1.25e-6, cacheRead: 0.125e-6, completion: 10e-6 };

/** The shipped catalog plus {@link MIXED}. */
function catalogFile(): string {
  const chat = parseYaml(readFileSync(fromRoot('config', 'chat-models.yaml'), 'utf8')) as { models: unknown[] };
  chat.models.push({
    id: MIXED,
    name: 'Test: Gemini then OpenAI',
    created: 1767225600,
    context_length: 32000,
    endpoints: [
      {
        provider: 'google-ai-studio',
        upstream_model: 'gemini-2.5-flash',
        pricing: { prompt: '0.3', completion: '2.5' },
      },
      { provider: 'openai', upstream_model: 'gpt-mixed', pricing: { prompt: '1', completion: '1' } },
    ],
  });
  const file = path.join(tempDir('sy-gemini-'), 'chat-models.yaml');
  writeFileSync(file, toYaml(chat));
  return file;
}

interface Extensions {
  provider: string;
  usage: { cost: number; prompt_tokens: number; completion_tokens: number };
}
interface ReasoningMessage {
  reasoning?: string | null;
  reasoning_details?: Array<Record<string, unknown>>;
}

const weather: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'weather',
      description: 'The weather in a place',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  },
];

let h: GatewayHarness;
let client: OpenAI;
beforeAll(async () => {
  h = await startGatewayHarness({
    listen: true,
    overrides: { catalog: { chatModelsFile: catalogFile() }, breaker: { failureThreshold: 1000 } },
  });
  client = new OpenAI({ apiKey: h.key, baseURL: h.baseUrl, maxRetries: 0 });
});
afterAll(() => h.close());
beforeEach(() => {
  h.fleet.resetAll();
  h.events.length = 0;
});

const gemini = () => h.fleet.fakes['google-ai-studio']!;

const recorded = (id: string): UsageEvent => recordedOnce(h.events, id);

describe('whole and streamed answers', () => {
  test('a system prompt and a question: the contents sent, the answer, usage with cache reads and reasoning tokens, the cost', async () => {
    const res = await client.chat.completions.create({
      model: PRO,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello from gemini' },
      ],
      temperature: 0.5,
      top_p: 0.9,
      stop: ['END'],
      seed: 7,
      max_tokens: 200,
    });
    expect(res.choices[0]).toMatchObject({
      message: { role: 'assistant', content: 'echo: hello from gemini' },
      finish_reason: 'stop',
    });
    const ext = res as unknown as Extensions;
    expect(ext.provider).toBe('Google AI Studio');
    // 2.5 Pro always thinks: the 5 words of its thought are reasoning tokens of the completion.
    expect(res.usage).toMatchObject({
      prompt_tokens: 5,
      completion_tokens: 9,
      prompt_tokens_details: { cached_tokens: 2 },
      completion_tokens_details: { reasoning_tokens: 5 },
    });
    expect(ext.usage.cost).toBeCloseTo(3 * PRO_PRICE.prompt + 2 * PRO_PRICE.cacheRead + 9 * PRO_PRICE.completion, 12);
    const call = gemini().calls[0]!;
    expect(call.path).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
    expect(call.headers['x-goog-api-key']).toBe('test-key-google-ai-studio');
    expect(call.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'hello from gemini' }] }],
      systemInstruction: { parts: [{ text: 'be brief' }] },
      generationConfig: { temperature: 0.5, topP: 0.9, maxOutputTokens: 200, stopSequences: ['END'], seed: 7 },
    });
    expect(recorded(res.id)).toMatchObject({
      model: PRO,
      provider: 'Google AI Studio',
      tokensPrompt: 5,
      tokensCompletion: 9,
      costUsd: ext.usage.cost,
      finishReason: 'stop',
      upstreamId: 'gemini-fake-response-1',
    });
  });

  test('a stream: the pieces in order over alt=sse, the gateway usage chunk with the cost, the record', async () => {
    const chunks = await drain(
      await client.chat.completions.create({
        model: FLASH,
        messages: [{ role: 'user', content: 'stream this please' }],
        stream: true,
      }),
    );
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('echo: stream this please');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('stop');
    const last = chunks.at(-1) as unknown as Extensions;
    expect(last.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 4 });
    expect(last.usage.cost).toBeCloseTo(3 * FLASH_PRICE.prompt + 4 * FLASH_PRICE.completion, 12);
    expect(gemini().calls[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    await until('the usage record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({ streamed: true, status: 'ok', tokensCompletion: 4, costUsd: last.usage.cost });
  });

  test('JSON output: response_format json_schema as responseMimeType and responseJsonSchema', async () => {
    const schema = { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] };
    const res = await client.chat.completions.create({
      model: FLASH,
      messages: [{ role: 'user', content: 'structured please' }],
      response_format: { type: 'json_schema', json_schema: { name: 'echo', schema } },
    });
    expect(JSON.parse(res.choices[0]!.message.content ?? '')).toEqual({ echo: 'structured please' });
    expect(gemini().calls[0]!.body.generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
  });

  test('an image as a data URL goes inline; a remote https one as fileData, which Gemini fetches', async () => {
    const png = Buffer.from('fake png bytes').toString('base64');
    await client.chat.completions.create({
      model: FLASH,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    });
    expect(gemini().calls[0]!.body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'what is this' },
          { inlineData: { mimeType: 'image/png', data: png } },
          { fileData: { fileUri: 'https://example.com/cat.jpg', mimeType: 'image/jpeg' } },
        ],
      },
    ]);
  });
});

describe('tools and reasoning', () => {
  test('a tool round trip: functionDeclarations, the call, the result as a functionResponse named after it', async () => {
    const first = await client.chat.completions.create({
      model: FLASH,
      messages: [{ role: 'user', content: 'weather in Paris' }],
      tools: weather,
      tool_choice: 'required',
    });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    const call = first.choices[0]!.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error('expected a function call');
    expect(call).toMatchObject({ id: expect.stringMatching(/^call_/), function: { name: 'weather' } });
    expect(JSON.parse(call.function.arguments)).toEqual({ text: 'weather in Paris' });
    expect(gemini().calls[0]!.body).toMatchObject({
      tools: [
        {
          functionDeclarations: [
            {
              name: 'weather',
              parametersJsonSchema: (weather[0] as { function: { parameters: unknown } }).function.parameters,
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
    });
    expect(recorded(first.id)).toMatchObject({ toolCalls: 1, finishReason: 'tool_calls' });

    const second = await client.chat.completions.create({
      model: FLASH,
      tools: weather,
      messages: [
        { role: 'user', content: 'weather in Paris' },
        first.choices[0]!.message,
        { role: 'tool', tool_call_id: call.id, content: 'sunny and 21C' },
      ],
    });
    expect(second.choices[0]).toMatchObject({ message: { content: 'result: sunny and 21C' }, finish_reason: 'stop' });
    expect((gemini().calls[1]!.body.contents as unknown[]).slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'weather', args: { text: 'weather in Paris' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { output: 'sunny and 21C' } } }] },
    ]);
  });

  test('reasoning: the effort as a thinking budget, thoughts and the signature returned, the signature back unchanged', async () => {
    const messages = [{ role: 'user' as const, content: 'weather in Rome' }];
    const first = await client.chat.completions.create({
      model: FLASH,
      messages,
      tools: weather,
      max_tokens: 4000,
      reasoning_effort: 'high',
    });
    expect(gemini().calls[0]!.body.generationConfig).toEqual({
      maxOutputTokens: 4000,
      thinkingConfig: { thinkingBudget: 3200, includeThoughts: true },
    });
    const message = first.choices[0]!.message as (typeof first.choices)[0]['message'] & ReasoningMessage;
    const call = message.tool_calls![0]!;
    const signature = signatureOf('call', 'weather:{"text":"weather in Rome"}');
    expect(message.reasoning).toBe('thinking about: weather in Rome');
    expect(message.reasoning_details).toEqual([
      { type: 'reasoning.text', text: 'thinking about: weather in Rome', format: 'google-gemini-v1', index: 0 },
      { type: 'reasoning.encrypted', data: signature, format: 'google-gemini-v1', index: 1, id: call.id },
    ]);
    expect(first.usage?.completion_tokens_details?.reasoning_tokens).toBe(5);

    await client.chat.completions.create({
      model: FLASH,
      tools: weather,
      reasoning_effort: 'high',
      messages: [...messages, message, { role: 'tool', tool_call_id: call.id, content: 'rain' }],
    });
    const modelTurn = (gemini().calls[1]!.body.contents as Array<{ role: string; parts: unknown[] }>)[1]!;
    expect(modelTurn).toEqual({
      role: 'model',
      parts: [{ functionCall: { name: 'weather', args: { text: 'weather in Rome' } }, thoughtSignature: signature }],
    });
  });

  test('Gemini 3: the effort as a thinking level; a tool turn sent back without its signature is its 400', async () => {
    const messages = [{ role: 'user' as const, content: 'weather in Oslo' }];
    const first = await client.chat.completions.create({
      model: G3,
      messages,
      tools: weather,
      reasoning_effort: 'low',
    });
    expect(gemini().calls[0]!.body.generationConfig).toEqual({
      thinkingConfig: { thinkingLevel: 'LOW', includeThoughts: true },
    });
    const { reasoning_details: _details, ...stripped } = first.choices[0]!.message as ReasoningMessage &
      (typeof first.choices)[0]['message'];
    const call = stripped.tool_calls![0]!;
    const err = await client.chat.completions
      .create({
        model: G3,
        tools: weather,
        messages: [...messages, stripped, { role: 'tool', tool_call_id: call.id, content: 'snow' }],
      })
      .catch((e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
  });

  test('a streamed answer with thinking: reasoning deltas, then the text, the signature as its own detail', async () => {
    const chunks = await drain(
      await client.chat.completions.create({
        model: FLASH,
        messages: [{ role: 'user', content: 'think then answer' }],
        reasoning_effort: 'medium',
        stream: true,
      }),
    );
    const deltas = chunks.map((c) => (c.choices[0]?.delta ?? {}) as ReasoningMessage & { content?: string | null });
    expect(deltas.map((d) => d.reasoning ?? '').join('')).toBe('thinking about: think then answer');
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('echo: think then answer');
    expect(deltas.flatMap((d) => d.reasoning_details ?? []).at(-1)).toEqual({
      type: 'reasoning.encrypted',
      data: signatureOf('text', 'echo: think then answer'),
      format: 'google-gemini-v1',
      index: 1,
    });
  });
});

describe('faults, filters and fallback', () => {
  const messages = [{ role: 'user' as const, content: 'hello there' }];
  const ask = (model: string) => client.chat.completions.create({ model, messages });
  const askStream = (model: string) => client.chat.completions.create({ model, messages, stream: true });

  test.each([
    [
      '429 RESOURCE_EXHAUSTED → 429',
      { status: 429, body: geminiError(429, 'Quota exceeded', 'RESOURCE_EXHAUSTED') },
      429,
    ],
    [
      '503 UNAVAILABLE, overloaded → 529',
      { status: 503, body: geminiError(503, 'The model is overloaded.', 'UNAVAILABLE') },
      529,
    ],
    ['500 INTERNAL → 502', { status: 500, body: geminiError(500, 'Internal error', 'INTERNAL') }, 502],
  ])('%s, whole and streamed, before the first byte', async (_name, fault, status) => {
    gemini().setSticky(fault);
    expect(await statusOf(ask(FLASH))).toBe(status);
    expect(await statusOf(askStream(FLASH).then(drain))).toBe(status);
  });

  test.each([
    ['a cut connection', { cutAfterEvents: 2 }],
    ['an error event', { errorAfterEvents: 2 }],
  ])(
    '%s after the first content: the stream ends with the error, the tokens generated are recorded',
    async (_n, fault) => {
      gemini().setSticky(fault);
      const { seen, failed } = await readUntilFailure(await askStream(FLASH));
      expect(failed).toBeInstanceOf(Error);
      // The first piece reached the client (a cut may lose the one written just before it).
      expect(seen).toMatch(/^echo: /);
      await until('the usage record', () => h.events.length === 1);
      expect(h.events[0]).toMatchObject({ status: 'error', finishReason: 'error', streamed: true });
      expect(h.events[0]!.tokensCompletion).toBeGreaterThan(0);
    },
  );

  test('a safety block and a blocked prompt: finish_reason content_filter with 200, whole and streamed', async () => {
    for (const content of ['something unsafe', 'forbidden words']) {
      const res = await client.chat.completions.create({ model: FLASH, messages: [{ role: 'user', content }] });
      expect(res.choices[0]).toMatchObject({ message: { content: null }, finish_reason: 'content_filter' });
      const chunks = await drain(
        await client.chat.completions.create({ model: FLASH, messages: [{ role: 'user', content }], stream: true }),
      );
      expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('content_filter');
    }
    expect(h.events.map((e) => e.nativeFinishReason)).toEqual([
      'SAFETY',
      'SAFETY',
      'PROHIBITED_CONTENT',
      'PROHIBITED_CONTENT',
    ]);
  });

  test('fallback across formats: Gemini fails (500, then a 429), the OpenAI-format endpoint answers', async () => {
    gemini().queue({ status: 500 }, { status: 429, body: geminiError(429, 'Quota exceeded', 'RESOURCE_EXHAUSTED') });
    const whole = await ask(MIXED);
    expect((whole as unknown as Extensions).provider).toBe('OpenAI');
    const chunks = await drain(await askStream(MIXED));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('echo: hello there');
    expect(gemini().calls).toHaveLength(2);
    expect(h.fleet.fakes.openai!.calls.map((c) => c.body.model)).toEqual(['gpt-mixed', 'gpt-mixed']);
  });
});

describe('the other doors on a Gemini model', () => {
  test('POST /messages: the Anthropic shape from a Gemini answer', async () => {
    const res = await request(h.gw.app)
      .post('/api/v1/messages')
      .set('Authorization', bearer(h.key))
      .send({
        model: FLASH,
        max_tokens: 100,
        system: 'be brief',
        messages: [{ role: 'user', content: 'hello messages' }],
      });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: 'echo: hello messages' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: expect.any(Number), output_tokens: 3 },
    });
    expect(gemini().calls[0]!.body).toMatchObject({
      systemInstruction: { parts: [{ text: 'be brief' }] },
      generationConfig: { maxOutputTokens: 100 },
    });
  });

  test('POST /responses: the Responses shape from a Gemini answer', async () => {
    const res = await request(h.gw.app)
      .post('/api/v1/responses')
      .set('Authorization', bearer(h.key))
      .send({ model: FLASH, input: 'hello responses' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'response', status: 'completed' });
    const texts = (res.body.output as Array<{ content?: Array<{ text?: string }> }>).flatMap((o) => o.content ?? []);
    expect(texts.map((c) => c.text).join('')).toBe('echo: hello responses');
    expect(gemini().calls[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
  });
});
