/**
 * Anthropic's Messages API as a front door (inference keys, by `x-api-key` or a bearer token):
 * POST /messages (also `?beta=true`, as the Anthropic SDK and Claude Code call it), priced,
 * budgeted and recorded as chat is (`api_type` `messages`), and POST /messages/count_tokens, the
 * gateway's own count of a prompt (not priced). Errors come in Anthropic's envelope
 * (src/http/envelopes.ts).
 * @module
 */
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { requireInferenceKey } from '../auth/authenticate';
import { validate, validated } from '../http/validate';
import type { ApiRouter } from '../http/router';
import { pricedRoute } from '../http/priced-route';
import { exactPlan, wholePlan } from '../chat/plan';
import { callerOf } from '../http/caller';
import { MESSAGES_DOOR } from '../messages/door';
import { planMessages } from '../messages/plan';
import { readMessagesPrompt } from '../messages/prompt';
import type { MessagesAsk } from '../messages/types';
import { FORWARDED_HEADERS } from '../providers/anthropic/api';

/** Why a Messages request reserves what the 402 names, and what its client can change. */
const REFUSAL_HINT =
  'It holds its prompt plus the first slice of completion (budgets.sliceTokens, or max_tokens when smaller) at the dearest candidate, and more as the answer grows: shorten the prompt, or raise the budget.';

/** The validated body and the client's Anthropic headers. */
function askOf(req: Request): MessagesAsk {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string' && value !== '') headers[name] = value;
    else if (Array.isArray(value) && value.length > 0) headers[name] = value.join(',');
  }
  const session = req.headers['x-claude-code-session-id'];
  const agentSession = typeof session === 'string' && session !== '' ? session.slice(0, 256) : undefined;
  return { body: validated(req, 'messages.create.body'), headers, ...(agentSession ? { agentSession } : {}) };
}

/** Register the Messages routes. */
export function registerMessagesRoutes(api: ApiRouter, deps: AppDeps): void {
  const { chat } = deps;
  api.add(
    'post',
    '/messages',
    requireInferenceKey(),
    validate({ body: 'messages.create.body' }),
    pricedRoute(deps, {
      plan: (req: Request) => planMessages(chat, askOf(req)),
      run: (req: Request, res: Response, plan, budget) =>
        chat.answer(MESSAGES_DOOR, callerOf(req), askOf(req), plan, res, budget),
      track: (work) => chat.track(work),
      refusalHint: REFUSAL_HINT,
      refine: exactPlan,
      unsliced: wholePlan,
    }),
  );
  api.add(
    'post',
    '/messages/count_tokens',
    requireInferenceKey(),
    validate({ body: 'messages.count_tokens.body' }),
    function countMessageTokens(req: Request, res: Response) {
      const body = validated(req, 'messages.count_tokens.body');
      if (body.model !== undefined) deps.routing.catalog.resolveChat(body.model);
      res.json({ input_tokens: readMessagesPrompt(body).tokens });
    },
  );
}
