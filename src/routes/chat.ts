/**
 * POST /chat/completions (inference keys): validation, then the priced route: the plan (models,
 * candidates, worst case), the reservation, the answer (whole or streamed) and the settle.
 * Priced, budgeted and recorded as embeddings are.
 * @module
 */
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey, requireInferenceKey } from '../auth/authenticate';
import { validate, validated } from '../http/validate';
import type { ApiRouter } from '../http/router';
import { pricedRoute } from '../http/priced-route';
import { callerOf } from '../http/caller';
import { CHAT_DOOR } from '../chat/door';
import { exactPlan, wholePlan } from '../chat/plan';
import { withStopRule } from '../chat/stop-rule';
import { withForcedToolRule, withReasoningRule } from '../chat/reasoning-rule';
import { withFormatRule } from '../chat/format-rule';
import { withOutputRules } from '../chat/output-rule';
import { responseFormatOf } from '../chat/exchange-in';
import { reasoningOf } from '../chat/reasoning-in';
import { inlineFileParts, withFileRule } from '../chat/file-parts';

/** Why a chat request reserves what the 402 names, and what its client can change so that it fits. */
const REFUSAL_HINT =
  'It holds its prompt plus the first slice of completion (budgets.sliceTokens, or max_tokens when smaller) at the dearest candidate, and more as the answer grows: shorten the prompt, or raise the budget.';

/** Register the chat route. */
export function registerChatRoutes(api: ApiRouter, deps: AppDeps): void {
  const { chat } = deps;
  api.add(
    'post',
    '/chat/completions',
    requireInferenceKey(),
    validate({ body: 'chat.create.body' }),
    pricedRoute(deps, {
      plan: async (req: Request) => {
        const body = validated(req, 'chat.create.body');
        await inlineFileParts(deps.files, currentKey(req), body, deps.config.chat.maxFilePartBytes);
        const plan = withFileRule(withStopRule(chat.plan(CHAT_DOOR, body), body), body);
        const bound = body.max_completion_tokens != null ? 'body.max_completion_tokens' : 'body.max_tokens';
        const forced = body.tool_choice === 'required' || typeof body.tool_choice === 'object';
        const reasoned = withForcedToolRule(
          withReasoningRule(plan, reasoningOf(body), bound),
          forced,
          'body.tool_choice',
        );
        return withOutputRules(withFormatRule(reasoned, responseFormatOf(body), 'body.response_format'), body);
      },
      run: (req: Request, res: Response, plan, budget) =>
        chat.answer(CHAT_DOOR, callerOf(req), validated(req, 'chat.create.body'), plan, res, budget),
      track: (work) => chat.track(work),
      refusalHint: REFUSAL_HINT,
      refine: exactPlan,
      unsliced: wholePlan,
    }),
  );
}
