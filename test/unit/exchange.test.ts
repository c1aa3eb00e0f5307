/**
 * The canonical exchange: the chat door's body in canonical form and back out in each format,
 * and each format's stream as canonical events, so a door of another format sees the same
 * conversation, tool calls and usage as the chat door does.
 */
import type { ChatBody } from '../../src/chat/types';
import { exchangeOf } from '../../src/chat/exchange-in';
import { chatViewOf, parsedChatOf } from '../../src/chat/view';
import { anthropicChatAdapter } from '../../src/providers/anthropic/chat';
import { openaiChatAdapter } from '../../src/providers/openai/chat';
import { chatBodyOf, OpenAIEvents } from '../../src/providers/openai/chat-canonical';
import type { StreamEvent } from '../../src/inference/exchange';
import { HEAD, chatEndpoint, feed } from '../helpers/chat-endpoint';

const body: ChatBody = {
  model: 'm',
  messages: [
    { role: 'system', content: 'be brief' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'what is here?', cache_control: { type: 'ephemeral' } },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{"at":"desk"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'a cup' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'look',
        description: 'Look somewhere',
        parameters: { type: 'object', properties: { at: { type: 'string' } } },
      },
    },
  ],
  tool_choice: 'required',
  parallel_tool_calls: false,
  temperature: 0.5,
  stop: 'END',
  max_tokens: 64,
  user: 'u-1',
};

describe('the chat door in canonical form', () => {
  const x = exchangeOf(body, 64, false);

  it('keeps every message, part, tool and parameter', () => {
    expect(x.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(x.messages[1]!.parts).toEqual([
      { type: 'text', text: 'what is here?', cacheControl: { type: 'ephemeral' } },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } },
    ]);
    expect(x.messages[2]!.parts).toEqual([
      { type: 'tool_call', id: 'call_1', name: 'look', arguments: '{"at":"desk"}' },
    ]);
    expect(x.messages[3]!.parts).toEqual([{ type: 'tool_result', callId: 'call_1', content: 'a cup' }]);
    expect(x).toMatchObject({
      toolChoice: 'required',
      parallelToolCalls: false,
      temperature: 0.5,
      stop: ['END'],
      maxTokens: 64,
      user: 'u-1',
      stream: false,
    });
    expect(x.tools).toEqual([
      { name: 'look', description: 'Look somewhere', parameters: body.tools![0]!.function.parameters },
    ]);
  });

  it("comes back out in OpenAI's chat shape with the same conversation", () => {
    const out = chatBodyOf(x);
    expect(out.messages).toEqual([
      { role: 'system', content: 'be brief' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is here?', cache_control: { type: 'ephemeral' } },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{"at":"desk"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'a cup' },
    ]);
    expect(out).toMatchObject({
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 0.5,
      stop: ['END'],
      max_completion_tokens: 64,
      user: 'u-1',
    });
  });

  it('an OpenAI adapter given no door body of its own format builds its request from the canonical form', () => {
    const job = { exchange: () => x, stream: true, maxTokens: 64 };
    const sent = JSON.parse(String(openaiChatAdapter.buildRequest(job, chatEndpoint(), null).body)) as Record<
      string,
      unknown
    >;
    expect(sent).toMatchObject({
      model: 'upstream-model',
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 64,
    });
    expect(sent.messages).toEqual(chatBodyOf(x).messages);
  });
});

describe('answers in canonical form', () => {
  it('an OpenAI whole answer reads the same through the canonical form as passed through', () => {
    const answer = Buffer.from(
      JSON.stringify({
        id: 'chatcmpl-1',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: 'hi',
              tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 3, completion_tokens: 2 },
      }),
    );
    const direct = chatViewOf(openaiChatAdapter).parseResponse(answer)!;
    const canonical = parsedChatOf(openaiChatAdapter.parseAnswer(answer)!);
    expect(canonical.choices[0]!.message).toEqual(direct.choices[0]!.message);
    expect(canonical).toMatchObject({
      usage: direct.usage,
      finishReason: 'tool_calls',
      toolCalls: 1,
      upstreamId: 'chatcmpl-1',
    });
  });

  it('an OpenAI stream gives canonical events: text, a tool call in pieces, the stop and the usage', () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage: unknown = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-9', choices: [{ index: 0, delta, finish_reason: finish }], usage })}\n\n`;
    const stream = [
      chunk({ role: 'assistant', content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'look', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"at":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"desk"}' } }] }),
      chunk({}, 'tool_calls', { prompt_tokens: 9, completion_tokens: 4 }),
      'data: [DONE]\n\n',
    ].join('');
    const events = (oneByOne: boolean) => {
      const t = new OpenAIEvents();
      const out: StreamEvent[] = [];
      const bytes = Buffer.from(stream);
      if (oneByOne) for (let i = 0; i < bytes.length; i++) out.push(...t.push(bytes.subarray(i, i + 1)));
      else out.push(...t.push(bytes));
      out.push(...t.end());
      return { out, t };
    };
    const { out, t } = events(false);
    expect(events(true).out).toEqual(out);
    expect(out).toEqual([
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo' },
      { type: 'tool_call_start', index: 0, id: 'call_9', name: 'look' },
      { type: 'tool_call_delta', index: 0, arguments: '{"at":' },
      { type: 'tool_call_delta', index: 0, arguments: '"desk"}' },
      { type: 'stop', reason: 'tool_calls', native: 'tool_calls' },
      {
        type: 'usage',
        usage: { promptTokens: 9, completionTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      },
    ]);
    expect(t.done).toBe(true);
    expect(t.upstreamId).toBe('chatcmpl-9');
  });

  it('an Anthropic stream through the chat door ends with the same usage as its canonical events', () => {
    const ev = (type: string, data: Record<string, unknown>) =>
      `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const stream = Buffer.from(
      ev('message_start', { message: { id: 'msg_1', usage: { input_tokens: 4, output_tokens: 1 } } }) +
        ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'ok' } }) +
        ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }) +
        ev('message_stop', {}),
    );
    const events = anthropicChatAdapter.createEvents();
    const canonical = [...events.push(stream), ...events.end()];
    expect(canonical.filter((e) => e.type === 'usage').pop()).toEqual({
      type: 'usage',
      usage: { promptTokens: 4, completionTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
    const chat = chatViewOf(anthropicChatAdapter).createStream(HEAD);
    feed(chat, stream, false);
    expect(chat.summary().usage).toEqual({
      promptTokens: 4,
      completionTokens: 2,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    });
    expect(chat.summary().upstreamId).toBe('msg_1');
  });
});
