import type { ChatBody } from '../../src/chat/types';
import { anthropicChatAdapter as adapter } from '../../src/providers/anthropic/chat';
import { chatViewOf } from '../../src/chat/view';
import { HEAD, chatEndpoint, chatJob, feed, keyOf } from '../helpers/chat-endpoint';
import { countTokens } from '../../src/usage/tokens';

/** The chat door's view of the adapter's answers. */
const view = chatViewOf(adapter);

const endpoint = chatEndpoint({}, 'anthropic', 'https://api.anthropic.example/v1');
const request = (body: ChatBody, stream = false, ep = endpoint) =>
  JSON.parse(String(adapter.buildRequest(chatJob(body, stream), ep, keyOf(ep)).body)) as Record<string, unknown>;

describe('Anthropic chat: request', () => {
  it('POSTs <baseUrl>/messages with x-api-key and the API version', () => {
    const req = adapter.buildRequest(
      chatJob({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      endpoint,
      keyOf(endpoint),
    );
    expect(req.url).toBe('https://api.anthropic.example/v1/messages');
    expect(req.headers).toMatchObject({ 'x-api-key': 'key-anthropic', 'anthropic-version': '2023-06-01' });
    expect(req.headers.authorization).toBeUndefined();
  });

  it('moves system and developer messages to `system`, keeping cache_control', () => {
    const body = request({
      model: 'm',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }] },
        { role: 'developer', content: 'Answer in French.' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(body.system).toEqual([
      { type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Answer in French.' },
    ]);
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });

  it('sends a data: URL image inline and an https URL by reference', () => {
    const body = request({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'compare' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://img.example/cat.jpg' } },
          ],
        },
      ],
    });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'compare' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://img.example/cat.jpg' } },
        ],
      },
    ]);
  });

  it('turns tool calls into tool_use blocks, tool messages into one merged tool_result user turn, and merges adjacent turns', () => {
    const body = request({
      model: 'm',
      messages: [
        { role: 'user', content: 'weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'c2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: '18C' },
        { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: '24C' }] },
        { role: 'user', content: 'thanks' },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'c1', name: 'weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'c2', name: 'weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: '18C' },
          { type: 'tool_result', tool_use_id: 'c2', content: [{ type: 'text', text: '24C' }] },
          { type: 'text', text: 'thanks' },
        ],
      },
    ]);
  });

  it('maps tools, tool_choice and parallel_tool_calls', () => {
    const tools: ChatBody['tools'] = [
      {
        type: 'function',
        function: {
          name: 'weather',
          description: 'Weather now',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
      { type: 'function', function: { name: 'noop' } },
    ];
    const base = { model: 'm', messages: [{ role: 'user' as const, content: 'x' }], tools };
    expect(request(base).tools).toEqual([
      {
        name: 'weather',
        description: 'Weather now',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
      { name: 'noop', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(request({ ...base, tool_choice: 'auto' }).tool_choice).toEqual({ type: 'auto' });
    expect(request({ ...base, tool_choice: 'required' }).tool_choice).toEqual({ type: 'any' });
    expect(request({ ...base, tool_choice: 'none' }).tool_choice).toEqual({ type: 'none' });
    expect(request({ ...base, tool_choice: { type: 'function', function: { name: 'noop' } } }).tool_choice).toEqual({
      type: 'tool',
      name: 'noop',
    });
    expect(request({ ...base, parallel_tool_calls: false }).tool_choice).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    expect(request({ ...base, tool_choice: 'required', parallel_tool_calls: false }).tool_choice).toEqual({
      type: 'any',
      disable_parallel_tool_use: true,
    });
    expect(request(base).tool_choice).toBeUndefined();
  });

  it('always sends max_tokens (the client’s, else the catalog’s, else 4096), and maps stop, sampling and stream', () => {
    const messages = [{ role: 'user' as const, content: 'x' }];
    expect(request({ model: 'm', messages, max_completion_tokens: 77 }).max_tokens).toBe(77);
    expect(
      request({ model: 'm', messages }, false, chatEndpoint({ maxCompletionTokens: 8192 }, 'anthropic')).max_tokens,
    ).toBe(8192);
    const body = request(
      {
        model: 'm',
        messages,
        stop: 'END',
        temperature: 0.5,
        top_p: 0.9,
        top_k: 40,
        seed: 3,
        provider: { order: ['anthropic'] },
      },
      true,
    );
    expect(body).toEqual({
      model: 'upstream-model',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
      stop_sequences: ['END'],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      stream: true,
    });
  });
});

describe('Anthropic chat: answer', () => {
  const message = (over: Record<string, unknown> = {}) =>
    Buffer.from(
      JSON.stringify({
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude',
        content: [
          { type: 'text', text: 'Let me ' },
          { type: 'text', text: 'check.' },
          { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 50, output_tokens: 7 },
        ...over,
      }),
    );

  it('maps text, tool calls, the stop reason and usage with cache read and write', () => {
    expect(view.parseResponse(message())).toEqual({
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me check.',
            tool_calls: [
              { id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            ],
          },
          finish_reason: 'tool_calls',
          native_finish_reason: 'tool_use',
          logprobs: null,
        },
      ],
      created: null,
      systemFingerprint: null,
      usage: { promptTokens: 160, completionTokens: 7, cacheReadTokens: 100, cacheWriteTokens: 50, reasoningTokens: 0 },
      upstreamId: 'msg_1',
      finishReason: 'tool_calls',
      nativeFinishReason: 'tool_use',
      toolCalls: 1,
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
  ])('maps stop_reason %s to %s, keeping the raw one', (raw, finish) => {
    const parsed = view.parseResponse(message({ stop_reason: raw, content: [{ type: 'text', text: 'x' }] }));
    expect(parsed?.finishReason).toBe(finish);
    expect(parsed?.choices[0]?.native_finish_reason).toBe(raw);
    expect(parsed?.choices[0]?.message.tool_calls).toBeUndefined();
  });

  it('refuses what is not a message', () => {
    expect(view.parseResponse(Buffer.from('{"type":"error","error":{"type":"overloaded_error"}}'))).toBeNull();
    expect(view.parseResponse(Buffer.from('{"content": '))).toBeNull();
  });

  it('recognises overloaded_error bodies', () => {
    expect(
      adapter.isOverloaded?.(500, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
    ).toBe(true);
    expect(adapter.isOverloaded?.(529, '')).toBe(true);
    expect(adapter.isOverloaded?.(500, '{"type":"error","error":{"type":"api_error"}}')).toBe(false);
  });
});

const ev = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const toolStream = [
  ev('message_start', {
    message: {
      id: 'msg_7',
      model: 'claude-x',
      content: [],
      usage: { input_tokens: 12, cache_read_input_tokens: 30, cache_creation_input_tokens: 0, output_tokens: 1 },
    },
  }),
  ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  ev('ping', {}),
  ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Sure.' } }),
  ev('content_block_stop', { index: 0 }),
  ev('content_block_start', {
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_9', name: 'weather', input: {} },
  }),
  ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '' } }),
  ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: '{"ci' } }),
  ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: 'ty": "Par' } }),
  ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: 'is"}' } }),
  ev('content_block_stop', { index: 1 }),
  ev('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 25 } }),
  ev('message_stop', {}),
].join('');

const chunks = (events: string[]) =>
  events.map(
    (e) =>
      JSON.parse(e.slice('data: '.length)) as {
        id: string;
        object: string;
        created: number;
        model: string;
        choices: Array<{
          index: number;
          delta: Record<string, unknown>;
          finish_reason: string | null;
          native_finish_reason: string | null;
          logprobs: null;
        }>;
      },
  );

describe('Anthropic chat: stream → OpenAI chunks', () => {
  it('gives the same chunks fed one byte at a time as fed whole', () => {
    expect(feed(view.createStream(HEAD), Buffer.from(toolStream), true)).toEqual(
      feed(view.createStream(HEAD), Buffer.from(toolStream), false),
    );
  });

  it('turns text and a tool call whose arguments arrive in pieces into OpenAI chunks that reassemble', () => {
    const s = view.createStream(HEAD);
    const out = chunks(feed(s, Buffer.from(toolStream), false));
    for (const c of out) {
      expect(c).toMatchObject({
        id: HEAD.id,
        object: 'chat.completion.chunk',
        model: HEAD.model,
        provider: HEAD.provider,
        created: HEAD.created,
      });
      expect(typeof c.created).toBe('number');
      expect(c.choices[0]).toMatchObject({ index: 0, logprobs: null });
    }
    expect(out.map((c) => c.choices[0]!.delta)).toEqual([
      { role: 'assistant', content: 'Sure.' },
      { tool_calls: [{ index: 0, id: 'toolu_9', type: 'function', function: { name: 'weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] },
      { tool_calls: [{ index: 0, function: { arguments: 'ty": "Par' } }] },
      { tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] },
      {},
    ]);
    const args = out
      .flatMap((c) => (c.choices[0]!.delta.tool_calls as Array<{ function: { arguments: string } }> | undefined) ?? [])
      .map((t) => t.function.arguments)
      .join('');
    expect(JSON.parse(args)).toEqual({ city: 'Paris' });
    expect(out[out.length - 1]!.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      native_finish_reason: 'tool_use',
    });
    expect(s.started).toBe(true);
    expect(s.done).toBe(true);
    const summary = s.summary();
    expect(summary).toMatchObject({
      usage: { promptTokens: 42, completionTokens: 25, cacheReadTokens: 30, cacheWriteTokens: 0, reasoningTokens: 0 },
      finishReason: 'tool_calls',
      nativeFinishReason: 'tool_use',
      toolCalls: 1,
      upstreamId: 'msg_7',
    });
    expect(summary.generatedTokens()).toBe(countTokens(['Sure.weather{"city": "Paris"}']));
  });

  it('is not started before the first content, and an error event becomes the stream’s error', () => {
    const s = view.createStream(HEAD);
    expect(s.push(Buffer.from(toolStream.split('event: ping')[0]!))).toEqual([]);
    expect(s.started).toBe(false);
    s.push(Buffer.from(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi' } })));
    expect(s.started).toBe(true);
    expect(s.push(Buffer.from(ev('error', { error: { type: 'overloaded_error', message: 'Overloaded' } })))).toEqual(
      [],
    );
    expect(s.error).toEqual({ code: 529, message: 'Provider returned error' });
    expect(s.done).toBe(false);
    const limited = view.createStream(HEAD);
    limited.push(Buffer.from(ev('error', { error: { type: 'rate_limit_error', message: 'slow down' } })));
    expect(limited.error).toEqual({ code: 429, message: 'Rate limit exceeded' });
    const other = view.createStream(HEAD);
    other.push(Buffer.from(ev('error', { error: { type: 'api_error', message: 'boom' } })));
    expect(other.error).toEqual({ code: 502, message: 'Provider returned error' });
  });

  it('keeps message_start usage when message_delta adds only output tokens, and reports none when none came', () => {
    const s = view.createStream(HEAD);
    s.push(
      Buffer.from(
        ev('message_start', {
          message: {
            id: 'm',
            model: 'c',
            usage: { input_tokens: 5, cache_creation_input_tokens: 8, output_tokens: 1 },
          },
        }),
      ),
    );
    s.push(Buffer.from(ev('message_delta', { delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 9 } })));
    expect(s.summary().usage).toEqual({
      promptTokens: 13,
      completionTokens: 9,
      cacheReadTokens: 0,
      cacheWriteTokens: 8,
      reasoningTokens: 0,
    });
    expect(s.summary().finishReason).toBe('length');
    const bare = view.createStream(HEAD);
    bare.push(Buffer.from(ev('message_start', { message: { id: 'm', model: 'c' } }) + ev('message_stop', {})));
    expect(bare.summary().usage).toBeNull();
    expect(bare.done).toBe(true);
  });
});
