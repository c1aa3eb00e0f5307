/** An Anthropic Messages answer → the canonical answer. */
import type { Answer, Part } from '../../inference/exchange';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { finishOf, usageOf } from './finish';

/** A 2xx body → {@link Answer}: text blocks as text parts, `tool_use` blocks as tool calls; null when it is no message. */
export function fromMessagesResponse(body: Buffer): Answer | null {
  const b = asObject(parseJson(body.toString('utf8')));
  if (!b || b.type === 'error' || !Array.isArray(b.content)) return null;
  const parts: Part[] = [];
  for (const raw of b.content) {
    const block = asObject(raw);
    if (block?.type === 'text' && typeof block.text === 'string') parts.push({ type: 'text', text: block.text });
    else if (block?.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
      parts.push({ type: 'tool_call', id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
    }
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
