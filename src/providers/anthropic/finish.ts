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
 * Claude's counts → {@link ChatUsage}, on Anthropic's API and Bedrock's alike: the input count
 * excludes the cached part, so the prompt is input + cache read + cache write, as OpenAI counts it;
 * when one of the three is not a count, neither is the prompt (NaN), so a bad part can never pass
 * for a smaller prompt. Null when there is neither an input nor an output count.
 */
export function claudeUsage(
  input: number | null,
  output: number | null,
  cacheRead: number | null,
  cacheWrite: number | null,
): ChatUsage | null {
  if (input === null && output === null) return null;
  const parts = [input ?? 0, cacheRead ?? 0, cacheWrite ?? 0];
  const prompt = parts.every((n) => countOrNull(n) !== null) ? parts.reduce((a, b) => a + b, 0) : NaN;
  return {
    promptTokens: prompt,
    completionTokens: output ?? 0,
    cacheReadTokens: cacheRead ?? 0,
    cacheWriteTokens: cacheWrite ?? 0,
    reasoningTokens: 0,
  };
}

/** Anthropic's `usage` (counts as reported, see `reportedCount`) → {@link claudeUsage}. */
export function usageOf(raw: unknown): ChatUsage | null {
  const u = asObject(raw);
  if (!u) return null;
  return claudeUsage(
    reportedCount(u.input_tokens),
    reportedCount(u.output_tokens),
    reportedCount(u.cache_read_input_tokens),
    reportedCount(u.cache_creation_input_tokens),
  );
}
