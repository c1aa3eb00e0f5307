/**
 * What a chat call costs: what the budget step reserves before it (the worst case) and what it
 * settles to after (the usage the upstream reported, or the gateway's count).
 * @module
 */
import type { Endpoint } from '../catalog/types';
import { roundUsd } from '../catalog/usd';
import { cappedCompletion } from '../catalog/completion-cap';
import type { ChatUsage } from '../providers/chat-types';

/**
 * The most completion tokens a request may get from `endpoint`: the client's `max_tokens` /
 * `max_completion_tokens` when set (capped at the endpoint's maximum output, as it is sent), else
 * the endpoint's limit capped by the context the prompt leaves.
 */
export function maxCompletionOn(endpoint: Endpoint, promptTokens: number, asked: number | undefined): number {
  if (asked !== undefined) return cappedCompletion(endpoint, asked);
  const room = Math.max(1, endpoint.contextLength - promptTokens);
  return endpoint.maxCompletionTokens === null ? room : Math.min(endpoint.maxCompletionTokens, room);
}

/** USD for `usage` on `endpoint`: cache reads and writes at their own prices where it has them. */
export function chatCost(endpoint: Endpoint, usage: ChatUsage): number {
  const p = endpoint.pricing;
  const plain = Math.max(0, usage.promptTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const prompt =
    plain * p.prompt +
    usage.cacheReadTokens * (p.cacheRead ?? p.prompt) +
    usage.cacheWriteTokens * (p.cacheWrite ?? p.prompt);
  return roundUsd(prompt + usage.completionTokens * p.completion + p.request);
}

/**
 * The worst case on `endpoint`: `promptTokens` at the prompt (or cache-write, if dearer) price plus
 * the largest completion for each of `choices`. With `bound` the prompt count is an upper bound, so
 * the completion's room is taken as if the prompt were empty: a bound never makes the worst case smaller.
 * With `sliceTokens` the completion counted is at most that many tokens (the first slice, see
 * budgets/slices.ts).
 */
export function worstCaseCost(
  endpoint: Endpoint,
  promptTokens: number,
  asked: number | undefined,
  bound = false,
  choices = 1,
  sliceTokens = 0,
): number {
  const p = endpoint.pricing;
  const promptPrice = Math.max(p.prompt, p.cacheWrite ?? 0);
  const whole = choices * maxCompletionOn(endpoint, bound ? 0 : promptTokens, asked);
  const completion = sliceTokens > 0 ? Math.min(whole, sliceTokens) : whole;
  return roundUsd(promptTokens * promptPrice + completion * p.completion + p.request);
}

/** Whether a completion on `endpoint` may be longer than one slice of `sliceTokens` (0: slices off). */
export function outgrowsSlice(
  endpoint: Endpoint,
  asked: number | undefined,
  choices: number,
  sliceTokens: number,
): boolean {
  return sliceTokens > 0 && choices * maxCompletionOn(endpoint, 0, asked) > sliceTokens;
}
