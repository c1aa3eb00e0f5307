/**
 * The catalog's model routes (any key, served by the gateway itself): `GET /models`, the chat and
 * embeddings models with the hosted list's filters (Anthropic's list shape, chat models only, for a
 * caller that sends `anthropic-version`), `/models/{author}/{slug}` (one model, the SDKs'
 * `models.retrieve`), and `/models/{author}/{slug}/endpoints`, the
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
  // One model, as the SDKs' `models.retrieve` read it: the list's model object, with OpenAI's
  // `object` and `owned_by`. The OpenAI SDK sends the id as one segment (`openai%2Fgpt-4o`).
  const retrieve = (id: string, res: Response) => {
    const model = routing.catalog.find(id);
    if (!model) throw unknownModel(id);
    res.json({ ...model.wire, object: 'model', owned_by: id.split('/')[0] });
  };
  api.add(
    'get',
    '/models/:model',
    pathNamesResource('models.retrieve.params', (req) => unknownModel(String(req.params.model).slice(0, 200))),
    function retrieveModelById(req: Request, res: Response) {
      retrieve(validated(req, 'models.retrieve.params').model, res);
    },
  );
  api.add(
    'get',
    '/models/:author/:slug',
    pathNamesResource('models.endpoints.params', (req) =>
      unknownModel(`${String(req.params.author)}/${String(req.params.slug)}`.slice(0, 200)),
    ),
    function retrieveModel(req: Request, res: Response) {
      const { author, slug } = validated(req, 'models.endpoints.params');
      retrieve(`${author}/${slug}`, res);
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
