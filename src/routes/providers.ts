/**
 * `/providers` (any key): the catalog's providers with their endpoints' circuit state and the
 * caller's organization's recent attempts on each.
 * @module
 */
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import type { ApiRouter } from '../http/router';
import { currentKey } from '../auth/authenticate';

/** Register the provider list route. */
export function registerProviderRoutes(api: ApiRouter, deps: Pick<AppDeps, 'routing'>): void {
  api.add('get', '/providers', async function listProviders(req: Request, res: Response) {
    res.json(await deps.routing.providers(currentKey(req).orgId));
  });
}
