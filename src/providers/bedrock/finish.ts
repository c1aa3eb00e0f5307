/** Converse's `stopReason` and `usage` in canonical terms. */
import type { StopReason, Usage } from '../../inference/exchange';
import { asObject, countOrNull, reportedCount } from '../parse';

const STOP: Readonly<Record<string, StopReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};

/** A `stopReason` normalised (one added later ended the answer normally: `stop`). */
export function stopOf(reason: string): StopReason {
  return STOP[reason] ?? 'stop';
}

/**
 * Converse `usage` → canonical usage (counts as reported): `inputTokens` leaves out the tokens
 * read from and written to the prompt cache, so the prompt is the three together (NaN when one
 * is not a count, so that a bad part never passes for a smaller prompt). Null without counts.
 */
export function usageOf(raw: unknown): Usage | null {
  const u = asObject(raw);
  const input = reportedCount(u?.inputTokens);
  const output = reportedCount(u?.outputTokens);
  if (!u || (input === null && output === null)) return null;
  const cacheRead = reportedCount(u.cacheReadInputTokens) ?? 0;
  const cacheWrite = reportedCount(u.cacheWriteInputTokens) ?? 0;
  const parts = [input ?? 0, cacheRead, cacheWrite];
  return {
    promptTokens: parts.every((n) => countOrNull(n) !== null) ? parts.reduce((a, b) => a + b, 0) : NaN,
    completionTokens: output ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: 0,
  };
}
