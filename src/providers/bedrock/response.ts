/**
 * A Converse answer → the canonical answer: `output.message.content` in order (text, `toolUse`
 * as a tool call with its input as JSON arguments, Claude's `reasoningContent` as reasoning in
 * Anthropic's format, signed or redacted), `stopReason` and `usage`. Converse's answers carry no
 * id of their own.
 * @module
 */
import type { Answer, Part } from '../../inference/exchange';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { stopOf, usageOf } from './finish';

/** The reasoning format of Claude's thinking, on Bedrock as at Anthropic. */
export const CLAUDE_FORMAT = 'anthropic-claude-v1';

/** One content block as canonical parts (none for an empty or unknown one). */
function partsOf(raw: unknown): Part[] {
  const b = asObject(raw);
  if (!b) return [];
  if (typeof b.text === 'string') return b.text === '' ? [] : [{ type: 'text', text: b.text }];
  const use = asObject(b.toolUse);
  if (use && typeof use.toolUseId === 'string' && typeof use.name === 'string')
    return [{ type: 'tool_call', id: use.toolUseId, name: use.name, arguments: JSON.stringify(use.input ?? {}) }];
  const reasoning = asObject(b.reasoningContent);
  if (!reasoning) return [];
  if (typeof reasoning.redactedContent === 'string')
    return [{ type: 'reasoning', format: CLAUDE_FORMAT, encrypted: reasoning.redactedContent }];
  const text = asObject(reasoning.reasoningText);
  if (!text || typeof text.text !== 'string') return [];
  const signature = typeof text.signature === 'string' ? { signature: text.signature } : {};
  return [{ type: 'reasoning', format: CLAUDE_FORMAT, text: text.text, ...signature }];
}

/** A 2xx body → {@link Answer}; null when it is not a Converse answer (→ fallback, else 502). */
export function fromConverseResponse(body: Buffer): Answer | null {
  const b = asObject(parseJson(body.toString('utf8')));
  const message = asObject(asObject(b?.output)?.message);
  if (!b || !message || !Array.isArray(message.content)) return null;
  const native = typeof b.stopReason === 'string' ? b.stopReason : null;
  return {
    parts: message.content.flatMap(partsOf),
    stopReason: native === null ? null : stopOf(native),
    nativeStopReason: native,
    usage: usageOf(b.usage),
    upstreamId: null,
  };
}
