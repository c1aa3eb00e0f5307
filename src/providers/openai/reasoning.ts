/**
 * Reasoning in OpenAI-compatible answers, read the hosted service's way: its own `reasoning`
 * and `reasoning_details` (an upstream that already writes them), or DeepSeek's and vLLM's
 * `reasoning_content`, which becomes `reasoning` with one `reasoning.text` detail, so that
 * clients read the same two fields whoever served them, whole or streamed.
 * @module
 */
import type { ReasoningDetailOut } from '../chat-types';
import { asObject } from '../parse';

const DETAIL_TYPES: ReadonlySet<unknown> = new Set(['reasoning.text', 'reasoning.summary', 'reasoning.encrypted']);

/** Whether `type` is a `reasoning_details` entry's type. */
const isDetailType = (type: unknown): type is ReasoningDetailOut['type'] => DETAIL_TYPES.has(type);

/** The well-formed entries of an upstream's `reasoning_details`, in order (each keeps its members). */
function detailsOf(raw: unknown): ReasoningDetailOut[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: ReasoningDetailOut[] = [];
  for (const d of raw) {
    const detail = asObject(d);
    if (!detail || !isDetailType(detail.type)) continue;
    out.push({
      ...detail,
      type: detail.type,
      format: typeof detail.format === 'string' ? detail.format : 'unknown',
      index: typeof detail.index === 'number' ? detail.index : out.length,
    });
  }
  return out;
}

/** The reasoning fields of a message or delta, normalised (both absent when it has none). */
export function reasoningFields(m: Record<string, unknown>): {
  reasoning?: string;
  reasoning_details?: ReasoningDetailOut[];
} {
  const text =
    typeof m.reasoning === 'string'
      ? m.reasoning
      : typeof m.reasoning_content === 'string'
        ? m.reasoning_content
        : null;
  const details = detailsOf(m.reasoning_details);
  const out: { reasoning?: string; reasoning_details?: ReasoningDetailOut[] } = {};
  if (text !== null && text !== '') out.reasoning = text;
  if (details && details.length > 0) out.reasoning_details = details;
  else if (out.reasoning !== undefined)
    out.reasoning_details = [{ type: 'reasoning.text', text: out.reasoning, format: 'unknown', index: 0 }];
  return out;
}

/** Whether a message or delta carries reasoning. */
export function hasReasoning(m: Record<string, unknown>): boolean {
  return (
    (typeof m.reasoning === 'string' && m.reasoning !== '') ||
    (typeof m.reasoning_content === 'string' && m.reasoning_content !== '') ||
    (Array.isArray(m.reasoning_details) && m.reasoning_details.length > 0)
  );
}

/** A stream delta with `reasoning_content` rewritten as `reasoning` and its detail, or without any reasoning when `hide`. */
export function rewriteDelta(delta: Record<string, unknown>, hide: boolean): void {
  const fields = hide ? {} : reasoningFields(delta);
  delete delta.reasoning_content;
  delete delta.reasoning;
  delete delta.reasoning_details;
  Object.assign(delta, fields);
}
