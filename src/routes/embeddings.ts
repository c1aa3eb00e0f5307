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
import { ResponseBatch } from '../http/response-batch';
import { errorFields } from '../observability/error-fields';

function header(req: Request, name: string): string | null {
  const v = req.headers[name];
  return typeof v === 'string' && v !== '' ? v.slice(0, 512) : null;
}

/**
 * The route handlers of `POST /embeddings`, after the API chain (auth, rate limit, JSON body).
 * Also run outside Express by the hot route, so Node's request/response members only.
 */
export function createEmbeddingsHandlers(deps: AppDeps): RequestHandler[] {
  const { embeddings, logger } = deps;
  // Answers are written at the end of the poll pass, together with the others finished in it.
  const answers = new ResponseBatch((err, res) => {
    const req = res.req as Request;
    logger.error('response write failed', { request_id: req.ctx?.requestId, error: errorFields(err) });
  });
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
        origin: header(req, 'origin'),
      },
      req.valid.body as EmbeddingsBody,
    );
    // After the answer is sent: workspace classifiers tag the request (queued, never delays it).
    if (body.id) deps.classifiers.observeAfter(res, { generationId: body.id, orgId: currentKey(req).orgId, workspaceId: currentKey(req).workspaceId, input: (req.valid.body as EmbeddingsBody).input, createdAt: new Date(deps.clock()) });
    answers.send(res, 200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length }, body.chunks);
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
