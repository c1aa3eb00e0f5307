/**
 * The Messages door's pieces without a server: the body in canonical form (thinking with its
 * signature, tool results as tool messages, structured outputs, what has no canonical form), the
 * Anthropic adapter's pass-through body and headers, canonical events as Anthropic's named events
 * (blocks opened and closed as the kind changes), and the pass-through stream (only
 * `message_start` relabelled, the final delta held back for the door's closing events).
 */
import { exchangeOf, unmappable } from '../../src/messages/exchange-in';
import { messagesJob } from '../../src/messages/job';
import { MESSAGES_DOOR } from '../../src/messages/door';
import type { MessagesBody } from '../../src/messages/types';
import { anthropicChatAdapter } from '../../src/providers/anthropic/chat';
import { openaiChatAdapter } from '../../src/providers/openai/chat';
import type { Usage } from '../../src/inference/exchange';
import { HEAD, chatEndpoint, keyOf } from '../helpers/chat-endpoint';

const body = (over: Record<string, unknown> = {}): MessagesBody => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 100,
  messages: [{ role: 'user', content: 'hi' }],
  ...over,
});

const USAGE: Usage = {
  promptTokens: 10,
  completionTokens: 3,
  cacheReadTokens: 4,
  cacheWriteTokens: 1,
  reasoningTokens: 0,
};

const sse = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** Named events of a door's output. */
const named = (out: string) =>
  out
    .split('\n\n')
    .filter(Boolean)
    .map((e) => ({
      event: /^event: (.*)$/m.exec(e)![1],
      data: JSON.parse(/^data: (.*)$/m.exec(e)![1]!) as Record<string, unknown>,
    }));

describe('Messages body → canonical', () => {
  test('thinking keeps its signature; tool results become tool messages; system and sampling carry over', () => {
    const x = exchangeOf(
      body({
        system: [{ type: 'text', text: 'be terse', cache_control: { type: 'ephemeral' } }],
        temperature: 0.5,
        stop_sequences: ['END'],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        tools: [{ name: 'read', input_schema: { type: 'object' } }],
        messages: [
          { role: 'user', content: 'read a' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm', signature: 'sig-1' },
              { type: 'redacted_thinking', data: 'opaque' },
              { type: 'tool_use', id: 't1', name: 'read', input: { path: 'a' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: 'A', is_error: true },
              { type: 'text', text: 'and?' },
            ],
          },
        ],
      }),
      100,
      false,
    );
    expect(x.messages).toEqual([
      { role: 'system', parts: [{ type: 'text', text: 'be terse', cacheControl: { type: 'ephemeral' } }] },
      { role: 'user', parts: [{ type: 'text', text: 'read a' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', format: 'anthropic-claude-v1', text: 'hmm', signature: 'sig-1' },
          { type: 'reasoning', format: 'anthropic-claude-v1', encrypted: 'opaque' },
          { type: 'tool_call', id: 't1', name: 'read', arguments: '{"path":"a"}' },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool_result', callId: 't1', content: 'A', isError: true }] },
      { role: 'user', parts: [{ type: 'text', text: 'and?' }] },
    ]);
    expect(x).toMatchObject({
      temperature: 0.5,
      stop: ['END'],
      toolChoice: 'required',
      parallelToolCalls: false,
      maxTokens: 100,
    });
    expect(x.tools).toEqual([{ name: 'read', parameters: { type: 'object' } }]);
  });

  test('structured outputs become the canonical response format', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(
      exchangeOf(body({ output_config: { format: { type: 'json_schema', schema } } }), 1, false).responseFormat,
    ).toEqual({
      type: 'json_schema',
      name: 'output',
      schema,
    });
  });

  test('documents, server tool blocks, unknown blocks and typed tools have no canonical form', () => {
    const b = body({
      tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'document', source: { type: 'text' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'brand_new_block' }] },
      ],
    });
    expect(unmappable(b)).toEqual([
      'messages.0.content.1 (document)',
      'messages.1.content.0 (brand_new_block)',
      'tools.0 (web_search_20250305)',
    ]);
    expect(unmappable(body())).toEqual([]);
  });
});

describe('the Anthropic adapter and the Messages job', () => {
  const endpoint = chatEndpoint({ upstreamModel: 'claude-sonnet-4-5-20250929' }, 'anthropic', 'https://a.example/v1');
  const headers = { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'x-2025' };

  test('the body as sent, but for model and the gateway fields; the anthropic-* headers forwarded', () => {
    const sent = body({
      models: ['m2'],
      provider: { sort: 'price' },
      session_id: 's',
      new_field: { a: 1 },
      thinking: { type: 'enabled', budget_tokens: 10 },
    });
    const req = anthropicChatAdapter.buildRequest(
      messagesJob({ body: sent, headers }, 100, true),
      endpoint,
      keyOf(endpoint),
    );
    expect(JSON.parse(String(req.body))).toEqual({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      new_field: { a: 1 },
      thinking: { type: 'enabled', budget_tokens: 10 },
      stream: true,
    });
    expect(req.headers).toMatchObject({ ...headers, 'x-api-key': 'key-anthropic' });
  });

  test('an OpenAI-format adapter gets the canonical form and no anthropic-* header', () => {
    const req = openaiChatAdapter.buildRequest(
      messagesJob(
        { body: body({ thinking: { type: 'enabled', budget_tokens: 10 }, context_management: {} }), headers },
        100,
        false,
      ),
      chatEndpoint(),
      null,
    );
    expect(JSON.parse(String(req.body))).toEqual({
      model: 'upstream-model',
      messages: [{ role: 'user', content: 'hi' }],
      max_completion_tokens: 100,
    });
    expect(Object.keys(req.headers).filter((h) => h.startsWith('anthropic'))).toEqual([]);
  });
});

describe('the Messages door streams', () => {
  test('canonical events: a block per kind of content, closed by the next; finish writes the billed usage', () => {
    const s = MESSAGES_DOOR.view(openaiChatAdapter, chatEndpoint()).stream(HEAD);
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const out = [
      ...s.push(Buffer.from(chunk({ content: 'Hel' }) + chunk({ content: 'lo' }))),
      ...s.push(
        Buffer.from(chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'read', arguments: '{"a"' } }] })),
      ),
      ...s.push(
        Buffer.from(
          chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }, 'tool_calls') + 'data: [DONE]\n\n',
        ),
      ),
    ].join('');
    const events = named(out + s.finish(HEAD, USAGE, 0.5));
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]!.data.message).toMatchObject({ id: HEAD.id, model: HEAD.model });
    expect(events[5]!.data).toMatchObject({
      index: 1,
      content_block: { type: 'tool_use', id: 'call_1', name: 'read' },
    });
    expect(events[9]!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: {
        input_tokens: 5,
        output_tokens: 3,
        cache_read_input_tokens: 4,
        cache_creation_input_tokens: 1,
        cost: 0.5,
      },
    });
    expect(s.started).toBe(true);
  });

  test('pass-through: message_start relabelled, the rest as sent, the final delta held back', () => {
    const s = MESSAGES_DOOR.view(anthropicChatAdapter, chatEndpoint({}, 'anthropic')).stream(HEAD);
    const upstream = [
      sse('message_start', { message: { id: 'msg_up', model: 'claude-x', usage: { input_tokens: 5 } } }),
      sse('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }),
      sse('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig' } }),
      sse('future_event', { anything: true }),
    ];
    const out = s.push(Buffer.from(upstream.join('')));
    expect(named(out.join(''))[0]!.data.message).toEqual({
      id: HEAD.id,
      model: HEAD.model,
      usage: { input_tokens: 5 },
    });
    expect(out.slice(1)).toEqual(upstream.slice(1));
    const failed = named(s.fail(HEAD, 529, 'busy'));
    expect(failed).toEqual([
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'busy' } } },
    ]);
    const tail = s.push(
      Buffer.from(
        sse('content_block_stop', { index: 0 }) +
          sse('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } }) +
          sse('message_stop', {}),
      ),
    );
    expect(tail).toEqual([sse('content_block_stop', { index: 0 })]);
    expect(s.done).toBe(true);
    expect(s.summary()).toMatchObject({
      usage: { promptTokens: 5, completionTokens: 7 },
      nativeFinishReason: 'end_turn',
      upstreamId: 'msg_up',
    });
  });
});
