/**
 * POST /embeddings (inference keys) and GET /embeddings/models (any key): thin handlers over
 * {@link EmbeddingsService}.
 * @module
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey, requireInferenceKey } from '../auth/authenticate';
import { validate, validated } from '../http/validate';
import type { ApiRouter } from '../http/router';
import type { EmbeddingsAnswer } from '../embeddings/types';
import { reserveBudget } from '../http/budget';
import { callerOf, header } from '../http/caller';

/**
 * Work that follows a sent answer, never delaying it: the cache stores the misses, a sample of
 * requests is classified for the rankings datasets, and the workspace's classifiers tag it.
 */
function afterAnswer(deps: AppDeps, req: Request, res: Response, answer: EmbeddingsAnswer): void {
  const body = validated(req, 'embeddings.create.body');
  const key = currentKey(req);
  if (answer.afterSend) res.once('finish', answer.afterSend);
  deps.rankings.sampler.offer(res, { orgId: key.orgId, model: body.model, input: body.input, tokens: answer.promptTokens });
  if (answer.body.id) {
    const observed = { generationId: answer.body.id, orgId: key.orgId, workspaceId: key.workspaceId, input: body.input, createdAt: new Date(deps.clock()) };
    deps.classifiers.observeAfter(res, observed);
  }
}

/**
 * `POST /embeddings` after the API chain: validation, the plan (model, candidates, estimate),
 * then the budget step around the fallback runner; the reservation settles once the run is over.
 */
function createEmbeddingsChain(deps: AppDeps): RequestHandler[] {
  const { embeddings } = deps;
  return [
    requireInferenceKey(),
    validate({ body: 'embeddings.create.body' }),
    async function planEmbeddings(req: Request, res: Response, next: NextFunction) {
      const body = validated(req, 'embeddings.create.body');
      const directives = { bodyCache: body.cache, cacheControl: header(req, 'cache-control') };
      const plan = await embeddings.plan(body, { key: currentKey(req), directives });
      res.locals.embeddingsPlan = plan;
      res.locals.spend = { estimateUsd: plan.estimateUsd };
      next();
    },
    reserveBudget(deps, (work) => embeddings.track(work), async function createEmbeddings(req: Request, res: Response) {
      const { embeddingsPlan: plan, spend } = res.locals;
      if (!plan || !spend) throw new Error('createEmbeddings: the plan step did not run');
      const answer = await embeddings.create(callerOf(req), validated(req, 'embeddings.create.body'), plan);
      spend.actualUsd = answer.costUsd;
      // If so configured, a client never holds an answer whose usage record a crash could lose.
      if (deps.config.usage.answerAfterRecord) await answer.recorded;
      res.status(200).set({ 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(answer.body.length) });
      if (answer.cacheStatus) res.set('X-Switchyard-Cache', answer.cacheStatus);
      afterAnswer(deps, req, res, answer);
      // One write for the chunks of the answer (vectors are passed through as byte slices).
      res.cork();
      for (const chunk of answer.body.chunks) res.write(chunk);
      res.end();
    }),
  ];
}

/** Register the embeddings routes. */
export function registerEmbeddingRoutes(api: ApiRouter, deps: AppDeps): void {
  const { embeddings } = deps;
  api.add('post', '/embeddings', ...createEmbeddingsChain(deps));

  api.add('get', '/embeddings/models', validate({ query: 'embeddings.models.query' }), function listEmbeddingModels(req: Request, res: Response) {
    res.json(embeddings.listModels(validated(req, 'embeddings.models.query')));
  });
}
