/**
 * Rules of the chat-like doors' plans about thinking. Anthropic's thinking needs a budget of at
 * least {@link MIN_THINKING_BUDGET} tokens below `max_tokens`, so a request that asks for reasoning
 * with a smaller completion bound leaves the budget-style Claude candidates out (Anthropic's and
 * Bedrock's) (they could only
 * answer without the reasoning asked for), and is a 400 naming the bound when no other candidate is
 * left. A model that always thinks (catalog `thinking: always`) cannot be forced to call a tool
 * (Anthropic refuses `tool_choice` any/tool with thinking), so a forced tool leaves it out the same way.
 * @module
 */
import { ValidationError } from '../errors';
import type { ReasoningRequest } from '../inference/exchange';
import { MIN_THINKING_BUDGET, wantsReasoning } from '../inference/reasoning';
import { chatAdapterFor } from '../providers/chat-registry';
import type { Endpoint } from '../catalog/types';
import { narrowedTo, type ChatPlan } from './plan';

/** `plan` under the rule (see the module comment); `path` names the request's completion bound. */
export function withReasoningRule(plan: ChatPlan, reasoning: ReasoningRequest | undefined, path: string): ChatPlan {
  const bound = plan.maxTokens;
  if (!wantsReasoning(reasoning) || bound === undefined || bound > MIN_THINKING_BUDGET) return plan;
  // Adaptive thinking (Claude 4.6 and later) takes no budget, so any bound will do.
  const keep = (e: Endpoint) => chatAdapterFor(e.provider.adapter).thinksByBudget?.(e) !== true;
  const message = `must be above ${MIN_THINKING_BUDGET} for reasoning on ${plan.primary.id}'s providers (Anthropic's thinking budget is at least ${MIN_THINKING_BUDGET} tokens below it); raise it or turn reasoning off`;
  return narrowedTo(plan, keep, () => new ValidationError([{ path, message }]));
}

/** `plan` without the endpoints that always think when the request forces a tool call (`forced`); `path` names the tool choice. */
export function withForcedToolRule(plan: ChatPlan, forced: boolean, path: string): ChatPlan {
  if (!forced) return plan;
  const message = `forces a tool call, which ${plan.primary.id}'s providers refuse (the model always thinks, and a thinking model cannot be forced to call a tool); use "auto"`;
  return narrowedTo(
    plan,
    (e) => e.thinking !== 'always',
    () => new ValidationError([{ path, message }]),
  );
}
