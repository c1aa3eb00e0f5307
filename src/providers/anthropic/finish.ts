/** Anthropic's `stop_reason` and `usage` in OpenAI's terms. */
import type { ChatUsage, FinishReason } from '../chat-types';
import { asObject, countOrNull } from '../parse';

const FINISH: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

/** A `stop_reason` normalised (an unknown one ended the answer normally: `stop`); null when absent. */
export function finishOf(stopReason: unknown): FinishReason | null {
  return typeof stopReason === 'string' ? (FINISH[stopReason] ?? 'stop') : null;
}

/**
 * Anthropic's `usage` → {@link ChatUsage}. Its `input_tokens` excludes the cached part, so the
 * prompt is input + cache read + cache write, as OpenAI counts it.
 */
export function usageOf(raw: unknown): ChatUsage | null {
  const u = asObject(raw);
  const input = countOrNull(u?.input_tokens);
  const output = countOrNull(u?.output_tokens);
  if (!u || (input === null && output === null)) return null;
  const cacheRead = countOrNull(u.cache_read_input_tokens) ?? 0;
  const cacheWrite = countOrNull(u.cache_creation_input_tokens) ?? 0;
  return { promptTokens: (input ?? 0) + cacheRead + cacheWrite, completionTokens: output ?? 0, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite, reasoningTokens: 0 };
}
