/** Gemini's `finishReason`, prompt blocks and `usageMetadata` in canonical terms. */
import type { StopReason, Usage } from '../../inference/exchange';
import { asObject, reportedCount } from '../parse';

/** The finish reasons that mean the answer was withheld or cut by a filter. */
const FILTERED: ReadonlySet<string> = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
]);

/**
 * A candidate's `finishReason` normalised: a stop with function calls is `tool_calls`, the token
 * bound `length`, a filter `content_filter`, anything else (STOP, OTHER, reasons added later) `stop`.
 */
export function finishOf(reason: string, calledTools: boolean): StopReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(reason)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

/** The reason a prompt was blocked (`promptFeedback.blockReason`: no candidate at all), else null. */
export function blockReasonOf(body: Record<string, unknown>): string | null {
  const reason = asObject(body.promptFeedback)?.blockReason;
  return typeof reason === 'string' && reason !== '' ? reason : null;
}

/**
 * `usageMetadata` → canonical usage (counts as reported): the prompt includes the cached part
 * (`cachedContentTokenCount`, a cache read), the completion is the answer's tokens plus the
 * thoughts', which are its reasoning tokens. Null when it has neither a prompt nor an answer count.
 */
export function usageOf(raw: unknown): Usage | null {
  const u = asObject(raw);
  const prompt = reportedCount(u?.promptTokenCount);
  const candidates = reportedCount(u?.candidatesTokenCount);
  if (!u || (prompt === null && candidates === null)) return null;
  const thoughts = reportedCount(u.thoughtsTokenCount) ?? 0;
  return {
    promptTokens: prompt ?? 0,
    completionTokens: (candidates ?? 0) + thoughts,
    cacheReadTokens: reportedCount(u.cachedContentTokenCount) ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: thoughts,
  };
}
