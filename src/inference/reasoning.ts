/**
 * The hosted service's one reasoning control mapped to each provider's: OpenAI's effort levels
 * and Anthropic's thinking budget. An effort becomes a budget as a share of the completion bound,
 * and a budget an effort by the same shares, as the hosted service documents
 * (openrouter.ai/docs/use-cases/reasoning-tokens).
 * @module
 */
import type { ReasoningEffort, ReasoningRequest } from './exchange';

/** The share of the completion bound each effort may spend on reasoning. */
const EFFORT_SHARE: Readonly<Record<Exclude<ReasoningEffort, 'none'>, number>> = {
  xhigh: 0.95,
  high: 0.8,
  medium: 0.5,
  low: 0.2,
  minimal: 0.1,
};

/** Anthropic's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1024;
/** The largest budget an effort is turned into. */
const MAX_THINKING_BUDGET = 128_000;

/** Whether the request asks for reasoning at all (an explicit `none` or `enabled: false` does not). */
export function wantsReasoning(r: ReasoningRequest | undefined): r is ReasoningRequest {
  return r?.enabled === true && r.effort !== 'none';
}

/**
 * The effort to send an effort-style upstream (OpenAI's `reasoning_effort`): the client's own,
 * else one read from its budget's share of `maxTokens`, else `medium`; `none` when reasoning is
 * switched off. Callers send nothing when `enabled` is absent (the model's default).
 */
export function effortOf(r: ReasoningRequest, maxTokens: number | undefined): ReasoningEffort {
  if (r.enabled === false) return 'none';
  if (r.effort) return r.effort;
  if (r.maxTokens === undefined || maxTokens === undefined) return 'medium';
  const share = r.maxTokens / maxTokens;
  return share >= EFFORT_SHARE.high ? 'high' : share >= EFFORT_SHARE.medium ? 'medium' : 'low';
}

/**
 * The thinking budget to send a budget-style upstream (Anthropic's `budget_tokens`) with a
 * completion bound of `maxTokens`: the client's own budget, else its effort's share of the bound
 * (`medium` when none is named), at least {@link MIN_THINKING_BUDGET} and below `maxTokens`, as
 * Anthropic requires. Null when reasoning is off or the bound leaves no room for the minimum.
 */
export function thinkingBudget(r: ReasoningRequest | undefined, maxTokens: number): number | null {
  if (!wantsReasoning(r) || maxTokens <= MIN_THINKING_BUDGET) return null;
  const share = EFFORT_SHARE[(r.effort ?? 'medium') as Exclude<ReasoningEffort, 'none'>];
  const asked = r.maxTokens ?? Math.min(Math.floor(maxTokens * share), MAX_THINKING_BUDGET);
  return Math.min(Math.max(asked, MIN_THINKING_BUDGET), maxTokens - 1);
}
