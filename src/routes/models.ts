/**
 * The catalog's model routes (any key, served by the gateway itself): `GET /models`, the chat and
 * embeddings models with the hosted list's filters (Anthropic's list shape, chat models only, for a
 * caller that sends `anthropic-version`), and `/models/{author}/{slug}/endpoints`, the
 * page every model's `links.details` names, with the caller's organization's recent uptime and
 * latency on each endpoint. A malformed or unknown model is a 404 saying where the list is.
 * @module
 */
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { pathNamesResource, validate, validated } from '../http/validate';
import type { ApiRouter } from '../http/router';
import { unknownModel } from '../catalog/catalog';
import { listModels } from '../catalog/models-list';
import { currentKey } from '../auth/authenticate';
import { anthropicModelList } from '../messages/models-list';

/** Register the model routes. */
export function registerModelRoutes(api: ApiRouter, deps: Pick<AppDeps, 'routing'>): void {
  const { routing } = deps;
  api.add(
    'get',
    '/models',
    validate({ query: 'models.list.query' }),
    function listCatalogModels(req: Request, res: Response) {
      // Anthropic's clients name their API version; they read Anthropic's list shape.
      if (req.headers['anthropic-version']) return void res.json(anthropicModelList(routing.catalog.chatModels));
      res.json(listModels(routing.catalog.models, validated(req, 'models.list.query')));
    },
  );
  api.add(
    'get',
    '/models/:author/:slug/endpoints',
    pathNamesResource('models.endpoints.params', (req) =>
      unknownModel(`${String(req.params.author)}/${String(req.params.slug)}`.slice(0, 200)),
    ),
    async function modelEndpoints(req: Request, res: Response) {
      const { author, slug } = validated(req, 'models.endpoints.params');
      res.json(await routing.modelEndpoints(`${author}/${slug}`, currentKey(req).orgId));
    },
  );
}
