/**
 * The chat door's view of an adapter's answers: an adapter that speaks the door's format passes
 * them through; any other is read in canonical form and written back in OpenAI's chat shape.
 * @module
 */
import type { Answer } from '../inference/exchange';
import type { ChatToolCall } from './types';
import type { ChatAdapter, ChatView, ParsedChat } from '../providers/chat-types';
import { ChatChunks } from './chunks';
import { reasoningOfParts } from './reasoning-out';

/** A canonical answer as the chat door's one choice: text parts joined into `content`, tool calls as OpenAI's. */
export function parsedChatOf(answer: Answer): ParsedChat {
  let text: string | null = null;
  const toolCalls: ChatToolCall[] = [];
  for (const p of answer.parts) {
    if (p.type === 'text') text = (text ?? '') + p.text;
    else if (p.type === 'tool_call')
      toolCalls.push({ id: p.id, type: 'function', function: { name: p.name, arguments: p.arguments } });
  }
  const message: ParsedChat['choices'][number]['message'] = {
    role: 'assistant',
    content: text,
    ...reasoningOfParts(answer.parts),
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    choices: [
      {
        index: 0,
        message,
        finish_reason: answer.stopReason,
        native_finish_reason: answer.nativeStopReason,
        logprobs: null,
      },
    ],
    created: null,
    systemFingerprint: null,
    usage: answer.usage,
    upstreamId: answer.upstreamId,
    finishReason: answer.stopReason,
    nativeFinishReason: answer.nativeStopReason,
    toolCalls: toolCalls.length,
  };
}

const views = new WeakMap<ChatAdapter, ChatView>();

/** The chat door's view of `adapter` (made once per adapter). */
export function chatViewOf(adapter: ChatAdapter): ChatView {
  let view = views.get(adapter);
  if (!view) {
    view =
      adapter.format === 'openai-chat' && adapter.passThrough
        ? adapter.passThrough
        : {
            parseResponse: (body) => {
              const answer = adapter.parseAnswer(body);
              return answer && parsedChatOf(answer);
            },
            createStream: (head, hide) => new ChatChunks(adapter.createEvents(), head, hide === true),
          };
    views.set(adapter, view);
  }
  return view;
}
