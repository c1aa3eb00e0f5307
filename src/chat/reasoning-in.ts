/**
 * The chat door's reasoning fields in canonical form: the hosted service's `reasoning` object,
 * the `reasoning_effort` shorthand and the legacy `include_reasoning`, and the
 * `reasoning_details` a client sends back on an assistant message (each block keeps its format,
 * so that only the provider that signed it gets it back).
 * @module
 */
import type { Part, ReasoningFormat, ReasoningRequest } from '../inference/exchange';
import type { ChatBody } from './types';

/** One `reasoning_details` entry: as an assistant message sends it back, or as an upstream wrote it. */
export interface ReasoningDetail {
  type: 'reasoning.text' | 'reasoning.summary' | 'reasoning.encrypted';
  id?: string | null;
  format?: string | null;
  text?: string | null;
  summary?: string | null;
  signature?: string | null;
  data?: string;
}

const FORMATS: ReadonlySet<string> = new Set<ReasoningFormat>([
  'anthropic-claude-v1',
  'openai-responses-v1',
  'google-gemini-v1',
]);

/** A detail's format, `unknown` for one the gateway does not know. */
function formatOf(raw: string | null | undefined): ReasoningFormat {
  return raw && FORMATS.has(raw) ? (raw as ReasoningFormat) : 'unknown';
}

/** The request's reasoning control; undefined when it sets none of the fields. */
export function reasoningOf(body: ChatBody): ReasoningRequest | undefined {
  const r = body.reasoning ?? undefined;
  const effort = r?.effort ?? body.reasoning_effort ?? undefined;
  const maxTokens = r?.max_tokens ?? undefined;
  const exclude = r?.exclude ?? (body.include_reasoning === false ? true : undefined);
  const asked = effort !== undefined || maxTokens !== undefined;
  const enabled = r?.enabled ?? (asked ? effort !== 'none' : body.include_reasoning === true ? true : undefined);
  if (enabled === undefined && !asked && exclude === undefined) return undefined;
  const out: ReasoningRequest = {};
  if (enabled !== undefined) out.enabled = enabled;
  if (effort !== undefined) out.effort = effort;
  if (maxTokens !== undefined) out.maxTokens = maxTokens;
  if (exclude) out.exclude = true;
  return out;
}

/** An assistant message's `reasoning_details` as reasoning parts, in order. */
export function reasoningParts(details: readonly ReasoningDetail[]): Part[] {
  const parts: Part[] = [];
  for (const d of details) {
    const part: Part = { type: 'reasoning', format: formatOf(d.format) };
    if (typeof d.id === 'string') part.id = d.id;
    if (d.type === 'reasoning.encrypted') {
      if (typeof d.data !== 'string') continue;
      part.encrypted = d.data;
    } else if (d.type === 'reasoning.summary') {
      part.text = d.summary ?? d.text ?? '';
      part.summary = true;
    } else {
      part.text = d.text ?? '';
      if (typeof d.signature === 'string') part.signature = d.signature;
    }
    parts.push(part);
  }
  return parts;
}
