/**
 * The Gemini chat adapter's mapping, unit by unit: roles and turns, tool results named after their
 * calls, signatures rebuilt onto the parts they came on, the thinking control (budget or level,
 * off, excluded), the answer's parts, finish reasons and usage, and the stream translator (split
 * anywhere, a finish without `[DONE]`, a cut, an error event).
 */
import type { ChatBody } from '../../src/chat/types';
import { geminiChatAdapter as adapter } from '../../src/providers/gemini/chat';
import type { StreamEvent } from '../../src/inference/exchange';
import { chatEndpoint, chatJob, keyOf } from '../helpers/chat-endpoint';

const endpoint = chatEndpoint({ maxCompletionTokens: 65536 }, 'gemini', 'https://gemini.example/v1beta');
const request = (body: ChatBody, ep = endpoint, stream = false) =>
  JSON.parse(String(adapter.buildRequest(chatJob(body, stream), ep, keyOf(ep)).body)) as Record<string, unknown>;
const G = 'google-gemini-v1';

describe('Gemini chat: request', () => {
  it('POSTs :generateContent, or :streamGenerateContent?alt=sse, with x-goog-api-key', () => {
    const body: ChatBody = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    expect(adapter.buildRequest(chatJob(body), endpoint, 'k').url).toBe(
      'https://gemini.example/v1beta/models/upstream-model:generateContent',
    );
    const streamed = adapter.buildRequest(chatJob(body, true), endpoint, 'k');
    expect(streamed.url).toBe('https://gemini.example/v1beta/models/upstream-model:streamGenerateContent?alt=sse');
    expect(streamed.headers).toEqual({ 'content-type': 'application/json', 'x-goog-api-key': 'k' });
    expect(JSON.parse(String(streamed.body))).not.toHaveProperty('stream');
  });

  it('system and developer text → systemInstruction; user/model turns; the results of parallel calls in one user turn', () => {
    const body = request({
      model: 'm',
      messages: [
        { role: 'system', content: 'be terse' },
        { role: 'developer', content: 'in French' },
        { role: 'user', content: 'weather in Paris and Rome' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'c2', type: 'function', function: { name: 'time', arguments: 'not json' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'failed' }] },
      ],
    });
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'be terse' }, { text: 'in French' }] });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'weather in Paris and Rome' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'weather', args: { city: 'Paris' } } },
          { functionCall: { name: 'time', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'weather', response: { output: 'sunny' } } },
          { functionResponse: { name: 'time', response: { output: 'failed' } } },
        ],
      },
    ]);
  });

  it('tool_choice → toolConfig; tools → functionDeclarations with their JSON Schema', () => {
    const tools = [
      { type: 'function' as const, function: { name: 'f', description: 'd', parameters: { type: 'object' } } },
    ];
    const messages = [{ role: 'user' as const, content: 'x' }];
    const config = (tool_choice: ChatBody['tool_choice']) =>
      request({ model: 'm', messages, tools, tool_choice }).toolConfig;
    expect(request({ model: 'm', messages, tools }).tools).toEqual([
      { functionDeclarations: [{ name: 'f', description: 'd', parametersJsonSchema: { type: 'object' } }] },
    ]);
    expect(config('auto')).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(config('none')).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(config('required')).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(config({ type: 'function', function: { name: 'f' } })).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] },
    });
  });

  it("rebuilds Gemini's reasoning sent back onto its parts, byte for byte; another provider's is left out", () => {
    const body = request({
      model: 'm',
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: 'let me check',
          reasoning_details: [
            { type: 'reasoning.text', text: 'plan', signature: 'sig/thought+=', format: G },
            { type: 'reasoning.text', text: 'unsigned summary', format: G },
            { type: 'reasoning.encrypted', data: 'sig/call2==', id: 'c2', format: G },
            { type: 'reasoning.encrypted', data: 'sig-first', format: G },
            { type: 'reasoning.encrypted', data: 'sig-text', format: G },
            { type: 'reasoning.text', text: 'claude', signature: 'claude-sig', format: 'anthropic-claude-v1' },
          ],
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'a', arguments: '{}' } },
            { id: 'c2', type: 'function', function: { name: 'b', arguments: '{}' } },
          ],
        },
      ],
    });
    expect((body.contents as unknown[])[1]).toEqual({
      role: 'model',
      parts: [
        { text: 'plan', thought: true, thoughtSignature: 'sig/thought+=' },
        { text: 'let me check', thoughtSignature: 'sig-text' },
        { functionCall: { name: 'a', args: {} }, thoughtSignature: 'sig-first' },
        { functionCall: { name: 'b', args: {} }, thoughtSignature: 'sig/call2==' },
      ],
    });
  });

  it('images inline or fetched, audio and files inline', () => {
    const body = request({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'https://img.example/a.webp?x=1' } },
            { type: 'image_url', image_url: { url: 'https://img.example/noext' } },
            { type: 'input_audio', input_audio: { data: 'AAA=', format: 'wav' } },
            { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBE' } },
          ],
        },
      ],
    });
    expect((body.contents as Array<{ parts: unknown[] }>)[0]!.parts).toEqual([
      { fileData: { fileUri: 'https://img.example/a.webp?x=1', mimeType: 'image/webp' } },
      { fileData: { fileUri: 'https://img.example/noext' } },
      { inlineData: { mimeType: 'audio/wav', data: 'AAA=' } },
      { inlineData: { mimeType: 'application/pdf', data: 'JVBE' } },
    ]);
  });

  describe('thinkingConfig', () => {
    const thinking = (over: Partial<ChatBody>, ep = endpoint) =>
      (
        request({ model: 'm', messages: [{ role: 'user', content: 'x' }], ...over }, ep).generationConfig as
          { thinkingConfig?: unknown } | undefined
      )?.thinkingConfig;
    const gemini3 = chatEndpoint({ thinking: 'adaptive' }, 'gemini');

    it('none without a reasoning request (the model default)', () => {
      expect(thinking({})).toBeUndefined();
      expect(thinking({ reasoning: { exclude: true } })).toBeUndefined();
    });
    it('Gemini 2.5: an effort as a share of the bound, a budget as asked, inside the range every 2.5 model takes', () => {
      expect(thinking({ reasoning_effort: 'low', max_tokens: 10000 })).toEqual({
        thinkingBudget: 2000,
        includeThoughts: true,
      });
      expect(thinking({ reasoning: { max_tokens: 3000 }, max_tokens: 10000 })).toEqual({
        thinkingBudget: 3000,
        includeThoughts: true,
      });
      // No bound: a share of the endpoint's maximum output, kept at most 24576.
      expect(thinking({ reasoning_effort: 'high' })).toEqual({ thinkingBudget: 24576, includeThoughts: true });
      expect(thinking({ reasoning: { max_tokens: 100 }, max_tokens: 10000 })).toEqual({
        thinkingBudget: 1024,
        includeThoughts: true,
      });
    });
    it('off is budget 0 (level MINIMAL on Gemini 3, nothing on an always-thinking endpoint); excluded thoughts are not asked for', () => {
      expect(thinking({ reasoning: { enabled: false } })).toEqual({ thinkingBudget: 0 });
      expect(thinking({ reasoning_effort: 'none' }, gemini3)).toEqual({ thinkingLevel: 'MINIMAL' });
      expect(
        thinking({ reasoning: { enabled: false } }, chatEndpoint({ thinking: 'always' }, 'gemini')),
      ).toBeUndefined();
      expect(thinking({ reasoning: { effort: 'medium', exclude: true }, max_tokens: 10000 })).toEqual({
        thinkingBudget: 5000,
      });
    });
    it('Gemini 3: the effort as a level', () => {
      expect(thinking({ reasoning_effort: 'xhigh' }, gemini3)).toEqual({
        thinkingLevel: 'HIGH',
        includeThoughts: true,
      });
      expect(thinking({ reasoning_effort: 'minimal' }, gemini3)).toEqual({
        thinkingLevel: 'MINIMAL',
        includeThoughts: true,
      });
    });
  });
});

describe('Gemini chat: answers', () => {
  const answer = (b: unknown) => adapter.parseAnswer(Buffer.from(JSON.stringify(b)));

  it('thoughts, signatures, text and calls in order; usage with thoughts and cache reads; the response id', () => {
    const a = answer({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'hmm', thought: true },
              { text: 'checking', thoughtSignature: 'sT' },
              { functionCall: { name: 'f', args: { x: 1 }, id: 'fc-1' }, thoughtSignature: 'sC' },
            ],
          },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: {
        promptTokenCount: 10,
        candidatesTokenCount: 4,
        thoughtsTokenCount: 6,
        cachedContentTokenCount: 3,
      },
      responseId: 'r-1',
    });
    expect(a).toEqual({
      parts: [
        { type: 'reasoning', format: G, text: 'hmm' },
        { type: 'reasoning', format: G, encrypted: 'sT' },
        { type: 'text', text: 'checking' },
        { type: 'reasoning', format: G, encrypted: 'sC', id: 'fc-1' },
        { type: 'tool_call', id: 'fc-1', name: 'f', arguments: '{"x":1}' },
      ],
      stopReason: 'tool_calls',
      nativeStopReason: 'STOP',
      usage: { promptTokens: 10, completionTokens: 10, cacheReadTokens: 3, cacheWriteTokens: 0, reasoningTokens: 6 },
      upstreamId: 'r-1',
    });
  });

  it.each([
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['SPII', 'content_filter'],
    ['IMAGE_SAFETY', 'content_filter'],
    ['OTHER', 'stop'],
  ])('finishReason %s → %s', (native, reason) => {
    expect(answer({ candidates: [{ finishReason: native }] })).toMatchObject({
      stopReason: reason,
      nativeStopReason: native,
    });
  });

  it('a blocked prompt is an empty content_filter answer; a body that is no answer is null', () => {
    expect(answer({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 2 } })).toEqual({
      parts: [],
      stopReason: 'content_filter',
      nativeStopReason: 'SAFETY',
      usage: { promptTokens: 2, completionTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      upstreamId: null,
    });
    expect(answer({ error: { code: 400 } })).toBeNull();
    expect(adapter.parseAnswer(Buffer.from('not json'))).toBeNull();
  });

  it('503 UNAVAILABLE is overload, a plain 500 is not', () => {
    expect(adapter.isOverloaded?.(503, '{"error":{"status":"UNAVAILABLE"}}')).toBe(true);
    expect(adapter.isOverloaded?.(500, '{"error":{"status":"INTERNAL"}}')).toBe(false);
  });
});

describe('Gemini chat: streams', () => {
  const sse = (...events: unknown[]) => Buffer.from(events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join(''));
  const parts = (...p: unknown[]) => ({ candidates: [{ content: { role: 'model', parts: p } }] });
  const run = (bytes: Buffer, oneByOne: boolean) => {
    const t = adapter.createEvents();
    const out: StreamEvent[] = [];
    if (oneByOne) for (let i = 0; i < bytes.length; i++) out.push(...t.push(bytes.subarray(i, i + 1)));
    else out.push(...t.push(bytes));
    out.push(...t.end());
    return { out, done: t.done, id: t.upstreamId };
  };

  it.each([false, true])('thought, text, a whole call, usage and the finish (one byte at a time: %s)', (oneByOne) => {
    const bytes = sse(
      { ...parts({ text: 'hmm', thought: true }), responseId: 'r-9' },
      parts({ text: 'hi ' }),
      parts({ functionCall: { name: 'f', args: { a: 'é' }, id: 'c-1' }, thoughtSignature: 'sig' }),
      {
        candidates: [{ content: { parts: [] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 },
      },
    );
    const { out, done, id } = run(bytes, oneByOne);
    expect(out).toEqual([
      { type: 'reasoning', format: G, text: 'hmm' },
      { type: 'text', text: 'hi ' },
      { type: 'reasoning', format: G, encrypted: 'sig', id: 'c-1' },
      { type: 'tool_call_start', index: 0, id: 'c-1', name: 'f' },
      { type: 'tool_call_delta', index: 0, arguments: '{"a":"é"}' },
      {
        type: 'usage',
        usage: { promptTokens: 3, completionTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      },
      { type: 'stop', reason: 'tool_calls', native: 'STOP' },
    ]);
    expect(done).toBe(true);
    expect(id).toBe('r-9');
  });

  it('a prompt block ends the stream by the content filter', () => {
    const { out, done } = run(sse({ promptFeedback: { blockReason: 'OTHER' } }), false);
    expect(out).toEqual([{ type: 'stop', reason: 'content_filter', native: 'OTHER' }]);
    expect(done).toBe(true);
  });

  it('a stream cut before its finish is not done; an error event is the error (its status, not its text)', () => {
    expect(run(sse(parts({ text: 'a' })), false).done).toBe(false);
    const { out, done } = run(
      sse(parts({ text: 'a' }), { error: { code: 503, message: 'secret', status: 'UNAVAILABLE' } }),
      false,
    );
    expect(out.at(-1)).toEqual({ type: 'error', code: 503, message: expect.not.stringContaining('secret') });
    expect(done).toBe(false);
  });
});
