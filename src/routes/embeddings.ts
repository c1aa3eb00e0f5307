/**
 * POST /embeddings (inference keys) and GET /embeddings/models (any key): thin handlers over
 * {@link EmbeddingsService}.
 * @module
 */
import type { Request, RequestHandler, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey, requireInferenceKey } from '../auth/authenticate';
import { validate } from '../http/validate';
import type { ApiRouter } from '../http/router';
import type { EmbeddingsBody } from '../embeddings/types';
import type { ModelsQuery } from '../embeddings/models-list';

function header(req: Request, name: string): string | null {
  const v = req.headers[name];
  return typeof v === 'string' && v !== '' ? v.slice(0, 512) : null;
}

/**
 * The route handlers of `POST /embeddings`, after the API chain (auth, rate limit, JSON body).
 * Also run outside Express by the hot route, so Node's request/response members only.
 */
export function createEmbeddingsHandlers(deps: AppDeps): RequestHandler[] {
  const { embeddings } = deps;
  return [requireInferenceKey(), validate({ body: 'embeddings.create.body' }), async function createEmbeddings(req: Request, res: Response) {
    const body = await embeddings.create(
      {
        key: currentKey(req),
        requestId: req.ctx.requestId,
        startedAt: req.ctx.startedAt,
        sessionHeader: header(req, 'x-session-id'),
        userAgent: header(req, 'user-agent'),
        httpReferer: header(req, 'http-referer'),
        appTitle: header(req, 'x-openrouter-title') ?? header(req, 'x-title'),
      },
      req.valid.body as EmbeddingsBody,
    );
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    // Written in the same tick, the chunks leave in one writev (Node corks the socket until then).
    for (const chunk of body.chunks) res.write(chunk);
    res.end();
  }];
}

/** Register the embeddings routes; `create` is {@link createEmbeddingsHandlers}' result. */
export function registerEmbeddingRoutes(api: ApiRouter, deps: AppDeps, create: RequestHandler[]): void {
  const { embeddings } = deps;
  api.add('post', '/embeddings', ...create);

  api.add('get', '/embeddings/models', validate({ query: 'embeddings.models.query' }), function listEmbeddingModels(req: Request, res: Response) {
    res.json(embeddings.listModels(req.valid.query as ModelsQuery));
  });
}
