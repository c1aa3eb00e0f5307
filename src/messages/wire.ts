/**
 * The Messages door's wire pieces, shared by its pass-through and its canonical way out: named SSE
 * events, the billed usage in Anthropic's terms (with the gateway's cost), the stop reasons, and
 * the closing events (`message_delta` with the usage, `message_stop`) and error event it writes.
 * @module
 */
import { anthropicErrorType } from '../http/envelopes';
import type { StopReason, Usage } from '../inference/exchange';

/** One named SSE event as Anthropic writes them (`event: <type>` then `data: {"type": <type>, …}`). */
export function sseEvent(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/**
 * The billed usage as Anthropic's `usage`: its `input_tokens` excludes the cached part (the
 * gateway's `promptTokens` includes it), and the gateway's cost goes as the extra field `cost`.
 */
export function usageWire(usage: Usage, cost: number): Record<string, number> {
  return {
    input_tokens: Math.max(0, usage.promptTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
    output_tokens: usage.completionTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cost,
  };
}

const STOP: Readonly<Record<StopReason, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  error: 'end_turn',
};

/** A canonical stop reason as Anthropic's `stop_reason` (null while unknown). */
export function stopReasonOf(reason: StopReason | null): string | null {
  return reason === null ? null : STOP[reason];
}

/** The events that close a stream that ran to its end: the billed usage and the terminator (`metadata` when the budget ended it). */
export function closingEvents(
  stopReason: string | null,
  stopSequence: string | null,
  usage: Usage,
  cost: number,
  metadata?: object,
) {
  return (
    sseEvent('message_delta', {
      delta: { stop_reason: stopReason ?? 'end_turn', stop_sequence: stopSequence },
      usage: usageWire(usage, cost),
      ...(metadata ? { metadata } : {}),
    }) + sseEvent('message_stop', {})
  );
}

/** Anthropic's in-stream error event for a failure of status `code` (`overloaded_error` for 529). */
export function errorEvent(code: number, message: string): string {
  const type = code === 529 ? 'overloaded_error' : code >= 500 || code < 400 ? 'api_error' : anthropicErrorType(code);
  return sseEvent('error', { error: { type, message } });
}

/** `content_block_stop` of each block index in `open`, in order. */
export function blockStops(open: Iterable<number>): string {
  let out = '';
  for (const index of open) out += sseEvent('content_block_stop', { index });
  return out;
}
