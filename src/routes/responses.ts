/**
 * POST /responses (inference keys): OpenAI's Responses API as a door on the inference core, priced,
 * budgeted and recorded as chat completions are (`api_type` `responses`). Hosted tools the door
 * leaves out are named in `X-Switchyard-Tools-Left-Out`.
 * @module
 */
import { withForcedToolRule, withReasoningRule } from '../chat/reasoning-rule';
import { reasoningOf, responseFormatOf } from '../responses/exchange-in';
import { withFormatRule } from '../chat/format-rule';
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { requireInferenceKey } from '../auth/authenticate';
import { validate, validated } from '../http/validate';
import type { ApiRouter } from '../http/router';
import { pricedRoute } from '../http/priced-route';
import { exactPlan, wholePlan } from '../chat/plan';
import { callerOf } from '../http/caller';
import { leftOutTools, responsesDoor } from '../responses/door';

/** The response header that names the hosted tool types left out of the request. */
export const LEFT_OUT_HEADER = 'X-Switchyard-Tools-Left-Out';

const REFUSAL_HINT =
  "Its worst case is its prompt plus the largest output it allows (max_output_tokens, else the model's whole output limit) at the dearest candidate: set max_output_tokens lower, or raise the budget.";

/** Register the Responses route. */
export function registerResponsesRoutes(api: ApiRouter, deps: AppDeps): void {
  const { chat } = deps;
  const body = (req: Request) => validated(req, 'responses.create.body');
  api.add(
    'post',
    '/responses',
    requireInferenceKey(),
    validate({ body: 'responses.create.body' }),
    pricedRoute(deps, {
      plan: (req: Request) => {
        const b = body(req);
        const reasoned = withReasoningRule(
          chat.plan(responsesDoor(b), b),
          reasoningOf(b.reasoning),
          'body.max_output_tokens',
        );
        // An object forces a tool unless it lets the model choose (`allowed_tools` with mode auto).
        const choice = b.tool_choice;
        const forced =
          choice === 'required' || (typeof choice === 'object' && choice !== null && choice.mode !== 'auto');
        const plan = withForcedToolRule(reasoned, forced, 'body.tool_choice');
        return withFormatRule(plan, responseFormatOf(b), 'body.text.format');
      },
      run: (req: Request, res: Response, plan, budget) => {
        const leftOut = leftOutTools(body(req));
        if (leftOut.length > 0) res.setHeader(LEFT_OUT_HEADER, leftOut.join(', '));
        return chat.answer(responsesDoor(body(req)), callerOf(req), body(req), plan, res, budget);
      },
      track: (work) => chat.track(work),
      refusalHint: REFUSAL_HINT,
      refine: exactPlan,
      unsliced: wholePlan,
    }),
  );
}
