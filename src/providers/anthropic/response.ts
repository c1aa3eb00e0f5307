/** An Anthropic Messages answer → the canonical answer. */
import type { Answer, Part } from '../../inference/exchange';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { finishOf, usageOf } from './finish';

/** A 2xx body → {@link Answer}: text blocks as text parts, `tool_use` blocks as tool calls, thinking as reasoning; null when it is no message. */
export function fromMessagesResponse(body: Buffer): Answer | null {
  const b = asObject(parseJson(body.toString('utf8')));
  return b ? answerOfMessage(b) : null;
}

/** A parsed message object → {@link Answer}; null when it is no message. */
export function answerOfMessage(b: Record<string, unknown>): Answer | null {
  if (b.type === 'error' || !Array.isArray(b.content)) return null;
  const parts: Part[] = [];
  for (const raw of b.content) {
    const block = asObject(raw);
    if (block?.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text });
    else if (block?.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
      parts.push({ type: 'tool_call', id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
    } else if (block?.type === 'thinking' && typeof block.thinking === 'string') {
      const signature = typeof block.signature === 'string' ? { signature: block.signature } : {};
      parts.push({ type: 'reasoning', format: 'anthropic-claude-v1', text: block.thinking, ...signature });
    } else if (block?.type === 'redacted_thinking' && typeof block.data === 'string')
      parts.push({ type: 'reasoning', format: 'anthropic-claude-v1', encrypted: block.data });
  }
  const native = typeof b.stop_reason === 'string' ? b.stop_reason : null;
  return {
    parts,
    stopReason: finishOf(native),
    nativeStopReason: native,
    usage: usageOf(b.usage),
    upstreamId: typeof b.id === 'string' ? b.id : null,
  };
}
