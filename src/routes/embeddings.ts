/**
 * POST /embeddings (inference keys) and GET /embeddings/models (any key): wiring over
 * {@link EmbeddingsService}. POST is a priced route: the plan (model, candidates, estimate, the
 * cache's hits), the reservation, the answer, and the settle once the run is over.
 * @module
 */
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey, requireInferenceKey } from '../auth/authenticate';
import { validate, validated } from '../http/validate';
import type { ApiRouter } from '../http/router';
import { pricedRoute } from '../http/priced-route';
import { callerOf, header } from '../http/caller';

/** Register the embeddings routes. */
export function registerEmbeddingRoutes(api: ApiRouter, deps: AppDeps): void {
  const { embeddings } = deps;
  api.add(
    'post',
    '/embeddings',
    requireInferenceKey(),
    validate({ body: 'embeddings.create.body' }),
    pricedRoute(deps, {
      plan: (req: Request) => {
        const body = validated(req, 'embeddings.create.body');
        return embeddings.plan(body, {
          key: currentKey(req),
          directives: { bodyCache: body.cache, cacheControl: header(req, 'cache-control') },
        });
      },
      run: (req: Request, res: Response, plan) =>
        embeddings.answer(callerOf(req), validated(req, 'embeddings.create.body'), plan, res),
      track: (work) => embeddings.track(work),
    }),
  );

  api.add(
    'get',
    '/embeddings/models',
    validate({ query: 'embeddings.models.query' }),
    function listEmbeddingModels(req: Request, res: Response) {
      res.json(embeddings.listModels(validated(req, 'embeddings.models.query')));
    },
  );
}
