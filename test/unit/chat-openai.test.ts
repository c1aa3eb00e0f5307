import type { ChatBody } from '../../src/chat/types';
import { openaiChatAdapter as adapter } from '../../src/providers/openai/chat';
import { chatViewOf } from '../../src/chat/view';
import { HEAD, chatEndpoint, chatJob, feed, keyOf } from '../helpers/chat-endpoint';
import { countTokens } from '../../src/usage/tokens';
import { OpenAIEvents } from '../../src/providers/openai/chat-canonical';

/** The chat door's view of the adapter's answers. */
const view = chatViewOf(adapter);

const messages: ChatBody['messages'] = [{ role: 'user', content: 'hi' }];

describe('OpenAI chat: request', () => {
  it('POSTs <baseUrl>/chat/completions with the bearer key, the upstream model and only OpenAI fields', () => {
    const body: ChatBody = {
      model: 'test/model',
      models: ['other/model'],
      messages,
      max_tokens: 50,
      temperature: 0.2,
      stop: ['\n'],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      response_format: { type: 'json_object' },
      logit_bias: { '12': 1 },
      user: 'u1',
      top_k: 5,
      provider: { order: ['openai'] },
      session_id: 's',
      usage: { include: true },
      transforms: ['middle-out'],
      trace: { a: 1 },
      metadata: { k: 'v' },
    };
    const req = adapter.buildRequest(chatJob(body), chatEndpoint(), keyOf(chatEndpoint()));
    expect(req.url).toBe('https://up.example/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer key-openai');
    expect(JSON.parse(String(req.body))).toEqual({
      model: 'upstream-model',
      messages,
      max_tokens: 50,
      temperature: 0.2,
      stop: ['\n'],
      tools: body.tools,
      tool_choice: 'auto',
      parallel_tool_calls: false,
      response_format: { type: 'json_object' },
      logit_bias: { '12': 1 },
      user: 'u1',
    });
  });

  it('sends top_k, min_p and repetition_penalty only to an endpoint whose catalog entry lists them', () => {
    const body: ChatBody = { model: 'm', messages, top_k: 40, min_p: 0.05, repetition_penalty: 1.1 };
    const listing = chatEndpoint({ parameters: new Set(['top_k', 'min_p', 'repetition_penalty']) }, 'together');
    expect(JSON.parse(String(adapter.buildRequest(chatJob(body), listing, null).body))).toEqual({
      model: 'upstream-model',
      messages,
      top_k: 40,
      min_p: 0.05,
      repetition_penalty: 1.1,
    });
    const onlyTopK = chatEndpoint({ parameters: new Set(['top_k']) }, 'groq');
    expect(JSON.parse(String(adapter.buildRequest(chatJob(body), onlyTopK, null).body))).toEqual({
      model: 'upstream-model',
      messages,
      top_k: 40,
    });
    // OpenAI's own API refuses them; a null from the client means "unset" and is not sent either.
    expect(JSON.parse(String(adapter.buildRequest(chatJob(body), chatEndpoint(), keyOf(chatEndpoint())).body))).toEqual(
      {
        model: 'upstream-model',
        messages,
      },
    );
    expect(
      JSON.parse(String(adapter.buildRequest(chatJob({ ...body, top_k: null }), listing, null).body)),
    ).not.toHaveProperty('top_k');
  });

  it('asks a stream for usage in its last chunk, and keeps max_completion_tokens as the client named it', () => {
    const req = adapter.buildRequest(
      chatJob({ model: 'm', messages, max_completion_tokens: 7, stream_options: { include_usage: false } }, true),
      chatEndpoint(),
      null,
    );
    expect(JSON.parse(String(req.body))).toEqual({
      model: 'upstream-model',
      messages,
      max_completion_tokens: 7,
      stream: true,
      stream_options: { include_usage: true },
    });
  });
});

describe('OpenAI chat: answer', () => {
  const answer = (over: Record<string, unknown> = {}) =>
    Buffer.from(
      JSON.stringify({
        id: 'chatcmpl-1',
        created: 1700000000,
        system_fingerprint: 'fp_1',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
            },
            finish_reason: 'tool_calls',
            logprobs: null,
          },
        ],
        usage: {
          prompt_tokens: 30,
          completion_tokens: 5,
          total_tokens: 35,
          prompt_tokens_details: { cached_tokens: 20 },
          completion_tokens_details: { reasoning_tokens: 2 },
        },
        ...over,
      }),
    );

  it('maps choices, usage with cached and reasoning tokens, the finish reason and the tool-call count', () => {
    const parsed = view.parseResponse(answer());
    expect(parsed).toEqual({
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
          },
          finish_reason: 'tool_calls',
          native_finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      created: 1700000000,
      systemFingerprint: 'fp_1',
      usage: { promptTokens: 30, completionTokens: 5, cacheReadTokens: 20, cacheWriteTokens: 0, reasoningTokens: 2 },
      upstreamId: 'chatcmpl-1',
      finishReason: 'tool_calls',
      nativeFinishReason: 'tool_calls',
      toolCalls: 1,
    });
  });

  it('normalises a compatible server’s finish reason and keeps the raw one', () => {
    const parsed = view.parseResponse(
      answer({ choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'model_length' }] }),
    );
    expect(parsed?.finishReason).toBe('length');
    expect(parsed?.nativeFinishReason).toBe('model_length');
  });

  it('has null usage when the upstream reports none', () => {
    expect(view.parseResponse(answer({ usage: undefined }))?.usage).toBeNull();
  });

  it.each([
    ['not json', Buffer.from('{"choices": [')],
    ['no choices', Buffer.from('{"choices": []}')],
    ['bad message', Buffer.from('{"choices": [{"message": {"content": 3}}]}')],
    ['an error', Buffer.from('{"error": {"message": "x"}}')],
  ])('refuses %s', (_name, body) => expect(view.parseResponse(body)).toBeNull());
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-9', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }], usage: null, ...extra })}\n\n`;
const usage = { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12, prompt_tokens_details: { cached_tokens: 4 } };
const BROKEN = 'data: {"id":"chatcmpl-9","choices":[{"delta":{"content":"not json\n\n';

const upstream = [
  ': keep-alive\n\n',
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Hello' }),
  BROKEN,
  chunk({ content: ' world' }),
  chunk({}, 'stop'),
  `data: ${JSON.stringify({ id: 'chatcmpl-9', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage })}\n\n`,
  'data: [DONE]\n\n',
].join('');

/** An upstream event as the client gets it: the gateway's id, model and provider in place, no `"usage":null`. */
const relabelled = (event: string) =>
  event
    .replace('"id":"chatcmpl-9"', '"id":"gen-1-test"')
    .replace('"model":"m"', '"model":"test/model","provider":"Test"')
    .replace(',"usage":null', '');

describe('OpenAI chat: stream passthrough', () => {
  it("returns the same events fed one byte at a time as fed whole: the upstream's, relabelled with the gateway's id, model and provider", () => {
    const whole = feed(view.createStream(HEAD), Buffer.from(upstream), false);
    expect(feed(view.createStream(HEAD), Buffer.from(upstream), true)).toEqual(whole);
    expect(whole).toEqual(
      [
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Hello' }),
        BROKEN,
        chunk({ content: ' world' }),
        chunk({}, 'stop'),
      ].map(relabelled),
    );
    for (const event of whole.filter((e) => e !== relabelled(BROKEN))) {
      expect(JSON.parse(event.slice('data: '.length))).toMatchObject({
        id: HEAD.id,
        model: HEAD.model,
        provider: HEAD.provider,
      });
      expect(event).not.toContain('"usage"');
    }
  });

  it('relabels chunks whose members are written with spaces, and leaves a usage object alone', () => {
    const spaced =
      'data: {"id": "chatcmpl-2", "model": "m-1", "choices": [{"index": 0, "delta": {"content": "hi"}}], "usage": null}\n\n';
    const [out] = feed(view.createStream(HEAD), Buffer.from(spaced), false);
    expect(JSON.parse(out!.slice('data: '.length))).toEqual({
      id: HEAD.id,
      model: HEAD.model,
      provider: HEAD.provider,
      choices: [{ index: 0, delta: { content: 'hi' } }],
    });
  });

  it('passes a malformed chunk after the start through untouched (it is never parsed), swallows usage-only and [DONE], and sums up', () => {
    const s = view.createStream(HEAD);
    expect(s.push(Buffer.from(chunk({ role: 'assistant', content: '' })))).toHaveLength(1);
    expect(s.started).toBe(false);
    s.push(Buffer.from(chunk({ content: 'Hello' })));
    expect(s.started).toBe(true);
    expect(s.push(Buffer.from(BROKEN))).toEqual([relabelled(BROKEN)]);
    s.push(Buffer.from(chunk({}, 'stop')));
    expect(s.push(Buffer.from(`data: ${JSON.stringify({ id: 'x', choices: [], usage })}\n\n`))).toEqual([]);
    expect(s.push(Buffer.from('data: [DONE]\n\n'))).toEqual([]);
    expect(s.done).toBe(true);
    expect(s.error).toBeNull();
    const summary = s.summary();
    expect(summary).toMatchObject({
      usage: { promptTokens: 9, completionTokens: 3, cacheReadTokens: 4, cacheWriteTokens: 0, reasoningTokens: 0 },
      finishReason: 'stop',
      nativeFinishReason: 'stop',
      toolCalls: 0,
      upstreamId: 'chatcmpl-9',
    });
    expect(summary.generatedTokens()).toBe(countTokens(['Hello']));
  });

  it('parses no content chunk once started: only those that may hold usage, a finish reason or an error', () => {
    const s = view.createStream(HEAD);
    s.push(Buffer.from(chunk({ content: 'Hello' })));
    const parse = jest.spyOn(JSON, 'parse');
    try {
      s.push(Buffer.from(chunk({ content: ' big' }) + BROKEN + chunk({ content: ' world' })));
      expect(parse).not.toHaveBeenCalled();
      s.push(Buffer.from(chunk({}, 'stop')));
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
    expect(s.summary().finishReason).toBe('stop');
  });

  it('returns a chunk carrying usage and choices without its usage', () => {
    const s = view.createStream(HEAD);
    const out = s.push(Buffer.from(chunk({ content: 'x' }, 'length', { usage })));
    expect(out).toHaveLength(1);
    const passed = JSON.parse(out[0]!.slice('data: '.length)) as Record<string, unknown>;
    expect(passed.usage).toBeUndefined();
    expect(passed.choices).toEqual([{ index: 0, delta: { content: 'x' }, finish_reason: 'length' }]);
    expect(s.summary().usage?.promptTokens).toBe(9);
    expect(s.summary().finishReason).toBe('length');
    expect(s.done).toBe(true);
  });

  it('starts at a tool call and counts tool calls, names and arguments in the generated text', () => {
    const s = view.createStream(HEAD);
    s.push(
      Buffer.from(
        chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'lookup', arguments: '' } }] }),
      ),
    );
    expect(s.started).toBe(true);
    s.push(
      Buffer.from(
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }) +
          chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      ),
    );
    s.push(
      Buffer.from(
        chunk({
          tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'again', arguments: '{}' } }],
        }) + chunk({}, 'tool_calls'),
      ),
    );
    s.end();
    expect(s.done).toBe(true); // ended cleanly after its finish reason ([DONE] or not)
    const summary = s.summary();
    expect(summary.toolCalls).toBe(2);
    expect(summary.finishReason).toBe('tool_calls');
    expect(summary.usage).toBeNull();
    expect(summary.generatedTokens()).toBe(countTokens(['lookup{"q":1}again{}']));
  });

  it('turns an {"error": …} event into the stream’s error and swallows it', () => {
    const s = view.createStream(HEAD);
    s.push(Buffer.from(chunk({ content: 'partial' })));
    expect(
      s.push(Buffer.from(`data: ${JSON.stringify({ error: { message: 'upstream broke', code: 503 } })}\n\n`)),
    ).toEqual([]);
    expect(s.error).toEqual({ code: 503, message: 'Service temporarily unavailable' }); // the upstream's text is not passed on
    expect(s.done).toBe(false);
    const overloaded = view.createStream(HEAD);
    overloaded.push(
      Buffer.from(`data: ${JSON.stringify({ error: { message: 'busy', type: 'overloaded_error' } })}\n\n`),
    );
    expect(overloaded.error).toEqual({ code: 529, message: 'Provider returned error' });
  });

  it('does not mistake a finish reason "error" or the word error in text for an error event', () => {
    const s = view.createStream(HEAD);
    expect(s.push(Buffer.from(chunk({ content: 'an "error": here' })))).toHaveLength(1);
    expect(s.error).toBeNull();
  });
});

test('canonical events: a body that ends cleanly after a finish reason is done without [DONE] (issue 61 item 7)', () => {
  const events = new OpenAIEvents();
  events.push(
    Buffer.from(
      `data: ${JSON.stringify({ id: 'u', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }] })}\n\n`,
    ),
  );
  expect(events.done).toBe(false);
  events.end();
  expect(events.done).toBe(true);
  const cut = new OpenAIEvents();
  cut.push(Buffer.from(`data: ${JSON.stringify({ id: 'u', choices: [{ index: 0, delta: { content: 'hi' } }] })}\n\n`));
  cut.end();
  expect(cut.done).toBe(false); // no finish reason: a stream cut short
});
