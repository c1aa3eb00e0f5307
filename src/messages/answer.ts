/**
 * The Messages door's whole answers: a canonical answer written as Anthropic's message object,
 * and an Anthropic-format upstream's own message relabelled; both carry the gateway's id and
 * model and the billed usage (with `usage.cost`).
 * @module
 */
import type { Answer, Part, Usage } from '../inference/exchange';
import type { StreamHead } from '../providers/chat-types';
import { asObject } from '../providers/parse';
import { parseJson } from '../providers/raw-json';
import { stopReasonOf, usageWire } from './wire';

/** A tool call's JSON arguments as the `input` object Anthropic's blocks carry (`{}` when not an object). */
export function inputOf(args: string): Record<string, unknown> {
  return asObject(parseJson(args)) ?? {};
}

/** One canonical part as a content block; null for parts an answer has no block for. */
function blockOf(p: Part): Record<string, unknown> | null {
  switch (p.type) {
    case 'text':
      return { type: 'text', text: p.text };
    case 'tool_call':
      return { type: 'tool_use', id: p.id, name: p.name, input: inputOf(p.arguments) };
    case 'reasoning':
      if (p.encrypted !== undefined && p.text === undefined) return { type: 'redacted_thinking', data: p.encrypted };
      // A signature is valid only with the provider that made it: another's is not sent as Anthropic's.
      return {
        type: 'thinking',
        thinking: p.text ?? '',
        signature: p.format === 'anthropic-claude-v1' ? (p.signature ?? '') : '',
      };
    case 'image':
    case 'audio':
    case 'file':
    case 'tool_result':
      return null;
  }
}

/** A canonical answer as the message JSON. */
export function messageBody(head: StreamHead, answer: Answer, usage: Usage, cost: number): string {
  const content = answer.parts.map(blockOf).filter((b): b is Record<string, unknown> => b !== null);
  return JSON.stringify({
    id: head.id,
    type: 'message',
    role: 'assistant',
    model: head.model,
    content,
    stop_reason: stopReasonOf(answer.stopReason),
    stop_sequence: null,
    usage: usageWire(usage, cost),
    provider: head.provider,
  });
}

/** An Anthropic upstream's message as it came, but for the gateway's id, model and billed usage. */
export function relabelledMessage(
  head: StreamHead,
  message: Record<string, unknown>,
  usage: Usage,
  cost: number,
): string {
  const upstreamUsage = asObject(message.usage) ?? {};
  return JSON.stringify({
    ...message,
    id: head.id,
    model: head.model,
    usage: { ...upstreamUsage, ...usageWire(usage, cost) },
    provider: head.provider,
  });
}

/** The text of an answer's parts (text, reasoning, tool names and arguments): what the gateway counts when usage is missing. */
export function answerText(answer: Answer): string {
  const out: string[] = [];
  for (const p of answer.parts) {
    if (p.type === 'text') out.push(p.text);
    else if (p.type === 'reasoning' && p.text) out.push(p.text);
    else if (p.type === 'tool_call') out.push(p.name, p.arguments);
  }
  return out.join('\n');
}
