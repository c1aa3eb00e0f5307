/** An Anthropic Messages answer → OpenAI's chat completion (one choice). */
import type { ChatToolCall } from '../../chat/types';
import type { ParsedChat } from '../chat-types';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { finishOf, usageOf } from './finish';

/** A 2xx body → {@link ParsedChat}: text blocks joined into `content`, `tool_use` blocks as tool calls; null when it is no message. */
export function fromMessagesResponse(body: Buffer): ParsedChat | null {
  const b = asObject(parseJson(body.toString('utf8')));
  if (!b || b.type === 'error' || !Array.isArray(b.content)) return null;
  let text: string | null = null;
  const toolCalls: ChatToolCall[] = [];
  for (const raw of b.content) {
    const block = asObject(raw);
    if (block?.type === 'text' && typeof block.text === 'string') text = (text ?? '') + block.text;
    else if (block?.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  const native = typeof b.stop_reason === 'string' ? b.stop_reason : null;
  const finishReason = finishOf(native);
  const message: ParsedChat['choices'][number]['message'] = { role: 'assistant', content: text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    choices: [{ index: 0, message, finish_reason: finishReason, native_finish_reason: native, logprobs: null }],
    created: null,
    systemFingerprint: null,
    usage: usageOf(b.usage),
    upstreamId: typeof b.id === 'string' ? b.id : null,
    finishReason,
    nativeFinishReason: native,
    toolCalls: toolCalls.length,
  };
}
