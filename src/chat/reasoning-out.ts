/**
 * The chat door's reasoning fields out: canonical reasoning parts as `reasoning` (their text) and
 * `reasoning_details` (each block with its format, signature or encrypted data, as the client must
 * send it back), and the rule of `reasoning.exclude`, which bills the reasoning but shows none.
 * @module
 */
import type { Part } from '../inference/exchange';
import type { ChatAnswerMessage, ParsedChat, ReasoningDetailOut } from '../providers/chat-types';

type ReasoningPart = Extract<Part, { type: 'reasoning' }>;

/** One reasoning part as a `reasoning_details` entry at `index`. */
export function detailOf(p: Omit<ReasoningPart, 'type'>, index: number): ReasoningDetailOut {
  const base = { format: p.format, index, ...(p.id !== undefined ? { id: p.id } : {}) };
  if (p.text === undefined && p.encrypted !== undefined)
    return { type: 'reasoning.encrypted', data: p.encrypted, ...base };
  if (p.summary) return { type: 'reasoning.summary', summary: p.text ?? '', ...base };
  return {
    type: 'reasoning.text',
    text: p.text ?? '',
    ...(p.signature !== undefined ? { signature: p.signature } : {}),
    ...base,
  };
}

/** The reasoning fields of a message whose parts are `parts` (none when it has no reasoning). */
export function reasoningOfParts(parts: readonly Part[]): Pick<ChatAnswerMessage, 'reasoning' | 'reasoning_details'> {
  const reasoning = parts.filter((p): p is ReasoningPart => p.type === 'reasoning');
  if (reasoning.length === 0) return {};
  const text = reasoning.map((p) => p.text ?? '').join('');
  return { reasoning: text === '' ? null : text, reasoning_details: reasoning.map((p, i) => detailOf(p, i)) };
}

/** `parsed` without reasoning text or details, for a request with `reasoning.exclude` (its tokens are billed all the same). */
export function withoutReasoning(parsed: ParsedChat): ParsedChat {
  if (!parsed.choices.some((c) => c.message.reasoning !== undefined || c.message.reasoning_details !== undefined))
    return parsed;
  const choices = parsed.choices.map((c) => {
    const { reasoning: _text, reasoning_details: _details, ...message } = c.message;
    return { ...c, message };
  });
  return { ...parsed, choices };
}
