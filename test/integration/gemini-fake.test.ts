/**
 * The fake Gemini chat wire read by Google's own `@google/genai` client: generateContent and
 * generateContentStream parse its answers (text, thoughts with their signatures, function calls,
 * usage, a safety block), and its refusals reach the client as Gemini's 400s, so the fake speaks
 * the wire as the SDK parses it.
 */
import { createRequire } from 'node:module';
import { startFake, type FakeUpstream } from '../fakes/server';
import { geminiChatWire, GEMINI_RESPONSE_ID, signatureOf } from '../fakes/gemini-chat-wire';
import { geminiWire } from '../fakes/wires';

// The SDK is ESM with a CommonJS build beside it ("require" in its exports), which Jest loads;
// TypeScript types it as ESM only, so it is required explicitly, typed by a type-only import.
type GenAI = typeof import('@google/genai', { with: { 'resolution-mode': 'import' } });
type Content = import('@google/genai', { with: { 'resolution-mode': 'import' } }).Content;
type ApiError = import('@google/genai', { with: { 'resolution-mode': 'import' } }).ApiError;
const { GoogleGenAI } = createRequire(__filename)('@google/genai') as GenAI;

let fake: FakeUpstream;
let ai: InstanceType<GenAI['GoogleGenAI']>;
beforeAll(async () => {
  fake = await startFake(geminiWire, geminiChatWire);
  // The SDK's own fetch (a custom one is its public option) uses the test's fetch: under Jest's
  // VM context Node's global dispatcher, which the default path reaches for, is not visible.
  ai = new GoogleGenAI({
    apiKey: 'test-key',
    httpOptions: { baseUrl: fake.origin, fetch: (input, init) => fetch(input, init) },
  });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const weather = [
  {
    functionDeclarations: [
      {
        name: 'weather',
        parametersJsonSchema: { type: 'object', properties: { text: { type: 'string' } } },
      },
    ],
  },
];

test('generateContent: the text, usage and response id as the SDK reads them; the key in x-goog-api-key', async () => {
  const res = await ai.models.generateContent({
    model: 'gemini-2.5-flash',
    contents: 'hello gemini',
    config: { systemInstruction: 'be brief' },
  });
  expect(res.text).toBe('echo: hello gemini');
  expect(res.responseId).toBe(GEMINI_RESPONSE_ID);
  expect(res.candidates?.[0]?.finishReason).toBe('STOP');
  expect(res.usageMetadata).toMatchObject({ promptTokenCount: 4, candidatesTokenCount: 3, cachedContentTokenCount: 2 });
  expect(fake.calls[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
  expect(fake.calls[0]!.headers['x-goog-api-key']).toBe('test-key');
});

test('thinking: a thought part with includeThoughts, the signature on the function call, thoughts in usage', async () => {
  const res = await ai.models.generateContent({
    model: 'gemini-2.5-flash',
    contents: 'weather in Rome',
    config: { tools: weather, thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } },
  });
  const parts = res.candidates![0]!.content!.parts!;
  expect(parts[0]).toEqual({ text: 'thinking about: weather in Rome', thought: true });
  expect(res.functionCalls).toEqual([{ name: 'weather', args: { text: 'weather in Rome' } }]);
  expect(parts[1]!.thoughtSignature).toBe(signatureOf('call', 'weather:{"text":"weather in Rome"}'));
  expect(res.usageMetadata?.thoughtsTokenCount).toBe(5);
});

test('generateContentStream: the pieces in order over alt=sse, the last carrying the finish and usage', async () => {
  const stream = await ai.models.generateContentStream({
    model: 'gemini-2.5-flash',
    contents: 'stream this please',
    config: { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
  expect(parts.filter((p) => p.thought).map((p) => p.text)).toEqual(['thinking about: stream this please']);
  expect(
    parts
      .filter((p) => !p.thought)
      .map((p) => p.text)
      .join(''),
  ).toBe('echo: stream this please');
  expect(parts.at(-1)!.thoughtSignature).toBe(signatureOf('text', 'echo: stream this please'));
  expect(chunks.at(-1)!.candidates?.[0]?.finishReason).toBe('STOP');
  expect(chunks.at(-1)!.usageMetadata?.candidatesTokenCount).toBe(4);
  expect(fake.calls[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
});

test('a safety block and a blocked prompt as the SDK sees them', async () => {
  const unsafe = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'something unsafe' });
  expect(unsafe.candidates?.[0]?.finishReason).toBe('SAFETY');
  expect(unsafe.text).toBeUndefined();
  const blocked = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'forbidden words' });
  expect(blocked.candidates).toBeUndefined();
  expect(blocked.promptFeedback?.blockReason).toBe('PROHIBITED_CONTENT');
});

describe('what it refuses, as Gemini does (400 INVALID_ARGUMENT)', () => {
  async function refused(model: string, contents: Content[], config = {}): Promise<ApiError> {
    try {
      await ai.models.generateContent({ model, contents, config });
    } catch (err) {
      return err as ApiError;
    }
    throw new Error('expected a refusal');
  }
  const call = { functionCall: { name: 'weather', args: { text: 'weather in Rome' } } };
  const history = (signature?: string): Content[] => [
    { role: 'user', parts: [{ text: 'weather in Rome' }] },
    { role: 'model', parts: [{ ...call, ...(signature !== undefined ? { thoughtSignature: signature } : {}) }] },
    { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { output: 'sunny' } } }] },
  ];

  test('Gemini 3: a function call of the current turn without its signature', async () => {
    const err = await refused('gemini-3-flash-preview', history(), { tools: weather });
    expect(err.status).toBe(400);
    expect(err.message).toContain('Function call is missing a thought_signature');
    // With the signature it gave, the same turn is answered.
    const ok = await ai.models.generateContent({
      model: 'gemini-3-flash-preview',
      contents: history(signatureOf('call', 'weather:{"text":"weather in Rome"}')),
      config: { tools: weather },
    });
    expect(ok.text).toBe('result: sunny');
  });

  test('a signature changed by one byte, a budget of 0 on 2.5 Pro, a level on 2.5', async () => {
    const good = signatureOf('call', 'weather:{"text":"weather in Rome"}');
    const bad = `${good.slice(0, -2)}x=`;
    expect((await refused('gemini-2.5-flash', history(bad))).message).toContain('Corrupted thought signature');
    const pro = await refused('gemini-2.5-pro', [{ role: 'user', parts: [{ text: 'hi' }] }], {
      thinkingConfig: { thinkingBudget: 0 },
    });
    expect(pro.message).toContain('only works in thinking mode');
    const level = await refused('gemini-2.5-flash', [{ role: 'user', parts: [{ text: 'hi' }] }], {
      thinkingConfig: { thinkingLevel: 'HIGH' },
    });
    expect(level.status).toBe(400);
  });
});
