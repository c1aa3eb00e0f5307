/**
 * Bounds on the usage an upstream reports. What an upstream says it used is what the caller is
 * billed, so no reported count is believed beyond what the request makes possible: a count that
 * is negative, not a whole number, or larger than its bound is replaced by the gateway's own
 * count, and the record says it was estimated. Pure: the caller logs what was replaced.
 * @module
 */
import type { Endpoint } from '../catalog/types';
import type { ChatUsage } from '../providers/chat-types';

/** The most each count of one chat answer can be. */
export interface ChatUsageLimits {
  /** Prompt tokens: the endpoint's context length. */
  prompt: number;
  /** Completion tokens (reasoning included): see {@link chatUsageLimits}. */
  completion: number;
}

/** The gateway's own counts, computed only when a reported one is missing or replaced. */
export interface OwnCounts {
  prompt: () => number;
  completion: () => number;
}

/** Usage fit to bill, whether any of it is the gateway's count, and which reported counts were replaced. */
export interface BoundedUsage {
  usage: ChatUsage;
  estimated: boolean;
  /** The fields whose reported value was out of bounds (empty when none, or when nothing was reported). */
  replaced: Array<keyof ChatUsage>;
}

/** Whether `n` is a count in `[0, max]`: a safe integer, so never NaN, Infinity or `1e300`. */
export function isCountWithin(n: unknown, max: number): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n <= max;
}

/**
 * The bounds of a chat answer on `endpoint`: the prompt fits the context; the completion is at
 * most the client's `max_tokens` (`asked`), else the endpoint's maximum output, and never more
 * than the context, which holds the prompt and the completion together.
 */
export function chatUsageLimits(endpoint: Endpoint, asked: number | undefined): ChatUsageLimits {
  const output = Math.min(asked ?? Infinity, endpoint.maxCompletionTokens ?? Infinity, endpoint.contextLength);
  return { prompt: endpoint.contextLength, completion: output };
}

/**
 * The usage to bill for a chat answer: `reported` with each count out of bounds replaced (prompt
 * and completion by `own`, the cache and reasoning parts by 0), or `own` whole when the upstream
 * reported nothing. Cache reads and writes together fit in the prompt, reasoning in the completion.
 */
export function boundChatUsage(reported: ChatUsage | null, limits: ChatUsageLimits, own: OwnCounts): BoundedUsage {
  if (!reported) {
    const usage = {
      promptTokens: own.prompt(),
      completionTokens: own.completion(),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    };
    return { usage, estimated: true, replaced: [] };
  }
  const replaced: Array<keyof ChatUsage> = [];
  const pick = (field: keyof ChatUsage, max: number, instead: () => number): number => {
    const n = reported[field];
    if (isCountWithin(n, max)) return n;
    replaced.push(field);
    return instead();
  };
  const promptTokens = pick('promptTokens', limits.prompt, own.prompt);
  const completionTokens = pick('completionTokens', limits.completion, own.completion);
  const cacheReadTokens = pick('cacheReadTokens', promptTokens, () => 0);
  const cacheWriteTokens = pick('cacheWriteTokens', promptTokens - cacheReadTokens, () => 0);
  const reasoningTokens = pick('reasoningTokens', completionTokens, () => 0);
  return {
    usage: { promptTokens, completionTokens, cacheReadTokens, cacheWriteTokens, reasoningTokens },
    estimated: replaced.length > 0,
    replaced,
  };
}

/** A cost capped at what the request reserved (USD), and whether it had to be. */
export function withinReservation(costUsd: number, reservedUsd: number): { usd: number; capped: boolean } {
  if (Number.isFinite(costUsd) && costUsd <= reservedUsd) return { usd: Math.max(0, costUsd), capped: false };
  return { usd: reservedUsd, capped: true };
}
