/** Converse's `stopReason` and `usage` in canonical terms. */
import type { StopReason, Usage } from '../../inference/exchange';
import { asObject, reportedCount } from '../parse';
import { claudeUsage } from '../anthropic/finish';

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

/** Converse `usage` (counts as reported; `inputTokens` leaves the cached part out, as Anthropic's does) → canonical usage. */
export function usageOf(raw: unknown): Usage | null {
  const u = asObject(raw);
  if (!u) return null;
  return claudeUsage(
    reportedCount(u.inputTokens),
    reportedCount(u.outputTokens),
    reportedCount(u.cacheReadInputTokens),
    reportedCount(u.cacheWriteInputTokens),
  );
}
