/**
 * The canonical reasoning request as Gemini's `thinkingConfig`: a token budget on Gemini 2.5
 * (the default), a level on an endpoint marked `thinking: adaptive` or `always` (Gemini 3, which
 * takes `thinkingLevel`, an effort). Thoughts are asked for (`includeThoughts`) unless the client
 * excluded them; without a reasoning request the model's own default applies.
 * @module
 */
import type { Endpoint } from '../../catalog/types';
import type { ReasoningEffort, ReasoningRequest } from '../../inference/exchange';
import { effortOf, thinkingBudget, wantsReasoning } from '../../inference/reasoning';
import type { GeminiThinkingConfig } from './types';

/**
 * The budgets every Gemini 2.5 model takes when thinking (2.5 Pro 128–32768, Flash 0–24576,
 * Flash-Lite 512–24576): a budget is kept inside them, as one outside is a 400.
 */
export const GEMINI_BUDGET = { min: 512, max: 24_576 } as const;

/** The completion bound a budget is a share of when the client set none and the catalog lists none. */
const DEFAULT_BOUND = 8192;

/** The canonical efforts as Gemini 3's levels. */
const LEVEL: Readonly<Record<ReasoningEffort, NonNullable<GeminiThinkingConfig['thinkingLevel']>>> = {
  none: 'MINIMAL',
  minimal: 'MINIMAL',
  low: 'LOW',
  medium: 'MEDIUM',
  high: 'HIGH',
  xhigh: 'HIGH',
};

/** A budget for `r` under the completion bound `bound`, inside {@link GEMINI_BUDGET}. */
function budgetOf(r: ReasoningRequest, bound: number): number {
  const asked = thinkingBudget(r, bound) ?? r.maxTokens ?? GEMINI_BUDGET.min;
  return Math.min(Math.max(asked, GEMINI_BUDGET.min), GEMINI_BUDGET.max);
}

/**
 * `thinkingConfig` for a request with reasoning `r` and completion bound `bound` on `endpoint`;
 * `hide` is the job's `reasoning.exclude`. Reasoning switched off is budget 0 (Gemini 2.5 Pro
 * refuses it: it always thinks) or level `MINIMAL`; on a `thinking: always` endpoint nothing.
 */
export function thinkingConfigOf(
  r: ReasoningRequest | undefined,
  endpoint: Endpoint,
  bound: number | undefined,
  hide: boolean,
): GeminiThinkingConfig | undefined {
  if (r?.enabled === undefined) return undefined;
  const levels = endpoint.thinking === 'adaptive' || endpoint.thinking === 'always';
  if (!wantsReasoning(r)) {
    if (endpoint.thinking === 'always') return undefined;
    return levels ? { thinkingLevel: 'MINIMAL' } : { thinkingBudget: 0 };
  }
  const thoughts = r.exclude || hide ? {} : { includeThoughts: true };
  const limit = bound ?? endpoint.maxCompletionTokens ?? DEFAULT_BOUND;
  return levels
    ? { thinkingLevel: LEVEL[effortOf(r, limit)], ...thoughts }
    : { thinkingBudget: budgetOf(r, limit), ...thoughts };
}
