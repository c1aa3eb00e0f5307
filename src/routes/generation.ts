/**
 * `GET /generation?id=` (any key): one usage record of the caller's organization in the
 * reference notes' Generation shape. Unknown ids, ids of other organizations and records the
 * outbox has not written yet are all 404, as on the hosted service ("not yet indexed").
 * @module
 */
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { validate, validated } from '../http/validate';
import type { ApiRouter } from '../http/router';
import { findGeneration, toGenerationWire } from '../usage/generations';

/** Register the generation route. */
export function registerGenerationRoutes(api: ApiRouter, deps: Pick<AppDeps, 'db'>): void {
  api.add(
    'get',
    '/generation',
    validate({ query: 'generation.query' }),
    async function getGeneration(req: Request, res: Response) {
      const { id } = validated(req, 'generation.query');
      const row = await findGeneration(deps.db, currentKey(req).orgId, id);
      if (!row) throw new NotFoundError();
      res.json({ data: toGenerationWire(row) });
    },
  );
}
