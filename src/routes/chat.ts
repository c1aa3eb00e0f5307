/**
 * POST /chat/completions (inference keys): validation, the plan (models, candidates, worst case),
 * then the budget step around the service, whole or streamed. Priced, budgeted and recorded as
 * embeddings are.
 * @module
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey, requireInferenceKey } from '../auth/authenticate';
import { validate, validated } from '../http/validate';
import type { ApiRouter } from '../http/router';
import { reserveBudget } from '../http/budget';
import { callerOf } from '../http/caller';

/** Why a chat request reserves what the 402 names, and what its client can change so that it fits. */
const REFUSAL_HINT =
  "Its worst case is its prompt plus the largest completion it allows (max_tokens, else the model's whole output limit) at the dearest candidate: set max_tokens lower, or raise the budget.";

/** Rankings sampling and workspace classifiers look at the user's texts once the answer is sent. */
function afterAnswer(deps: AppDeps, req: Request, res: Response, generationId: string, userTexts: string[], tokens: number): void {
  if (userTexts.length === 0) return;
  const key = currentKey(req);
  const body = validated(req, 'chat.create.body');
  deps.rankings.sampler.offer(res, { orgId: key.orgId, model: body.model ?? body.models?.[0] ?? '', input: userTexts, tokens });
  deps.classifiers.observeAfter(res, { generationId, orgId: key.orgId, workspaceId: key.workspaceId, input: userTexts, createdAt: new Date(deps.clock()) });
}

function createChatChain(deps: AppDeps): RequestHandler[] {
  const { chat } = deps;
  return [
    requireInferenceKey(),
    validate({ body: 'chat.create.body' }),
    function planChat(req: Request, res: Response, next: NextFunction) {
      const plan = chat.plan(validated(req, 'chat.create.body'));
      res.locals.chatPlan = plan;
      res.locals.spend = { estimateUsd: plan.estimateUsd, refusalHint: REFUSAL_HINT };
      next();
    },
    reserveBudget(deps, (work) => chat.track(work), async function createChatCompletion(req: Request, res: Response) {
      const { chatPlan: plan, spend } = res.locals;
      if (!plan || !spend) throw new Error('createChatCompletion: the plan step did not run');
      const body = validated(req, 'chat.create.body');
      if (plan.stream) {
        const started = (id: string) => afterAnswer(deps, req, res, id, plan.prompt.userTexts, plan.prompt.tokens);
        spend.actualUsd = await chat.stream(callerOf(req), body, plan, res, started);
        return;
      }
      const answer = await chat.complete(callerOf(req), body, plan);
      spend.actualUsd = answer.costUsd;
      if (deps.config.usage.answerAfterRecord) await answer.recorded;
      afterAnswer(deps, req, res, answer.id, plan.prompt.userTexts, plan.prompt.tokens);
      res.status(200).set({ 'Content-Type': 'application/json; charset=utf-8', 'X-Generation-Id': answer.id }).send(answer.body);
    }),
  ];
}

/** Register the chat route. */
export function registerChatRoutes(api: ApiRouter, deps: AppDeps): void {
  api.add('post', '/chat/completions', ...createChatChain(deps));
}
