/** Anthropic's `stop_reason` and `usage` in OpenAI's terms. */
import type { ChatUsage, FinishReason } from '../chat-types';
import { asObject, countOrNull, reportedCount } from '../parse';

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
 * Anthropic's `usage` → {@link ChatUsage} (counts as reported, see `reportedCount`). Its
 * `input_tokens` excludes the cached part, so the prompt is input + cache read + cache write, as
 * OpenAI counts it; when one of the three is not a count, neither is the prompt (NaN), so a bad
 * part can never pass for a smaller prompt.
 */
export function usageOf(raw: unknown): ChatUsage | null {
  const u = asObject(raw);
  const input = reportedCount(u?.input_tokens);
  const output = reportedCount(u?.output_tokens);
  if (!u || (input === null && output === null)) return null;
  const cacheRead = reportedCount(u.cache_read_input_tokens) ?? 0;
  const cacheWrite = reportedCount(u.cache_creation_input_tokens) ?? 0;
  const parts = [input ?? 0, cacheRead, cacheWrite];
  const prompt = parts.every((n) => countOrNull(n) !== null) ? parts.reduce((a, b) => a + b, 0) : NaN;
  return {
    promptTokens: prompt,
    completionTokens: output ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: 0,
  };
}
