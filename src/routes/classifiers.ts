/**
 * `/workspaces/{id}/classifiers[/{classifier_id}]` (management keys only): workspace
 * classifiers. `{id}` is a workspace UUID or slug; classifier ids are UUIDs. Create answers 201,
 * delete `{"deleted":true}`; another organization's workspace or classifier is 404.
 * @module
 */
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey, requireManagementKey } from '../auth/authenticate';
import { validate } from '../http/validate';
import type { ApiRouter } from '../http/router';
import { toWireClassifier, type ClassifierInput, type ClassifierRecord } from '../classifiers/types';

/** Register the classifier routes. */
export function registerClassifierRoutes(api: ApiRouter, deps: AppDeps): void {
  const { classifiers } = deps;
  const mgmt = requireManagementKey();
  const orgOf = (req: Request) => currentKey(req).orgId;
  const params = (req: Request) => req.valid.params as { id: string; classifier_id: string };
  const one = validate({ params: 'classifiers.ref.params' });

  api.add('post', '/workspaces/:id/classifiers', mgmt, validate({ params: 'workspaces.ref.params', body: 'classifiers.create.body' }), async function createClassifier(req: Request, res: Response) {
    const input = req.valid.body as ClassifierInput & { name: string; dimensions: ClassifierRecord['dimensions'] };
    res.status(201).json({ data: toWireClassifier(await classifiers.create(orgOf(req), params(req).id, input)) });
  });

  api.add('get', '/workspaces/:id/classifiers', mgmt, validate({ params: 'workspaces.ref.params' }), async function listClassifiers(req: Request, res: Response) {
    res.json({ data: (await classifiers.list(orgOf(req), params(req).id)).map(toWireClassifier) });
  });

  api.add('get', '/workspaces/:id/classifiers/:classifier_id', mgmt, one, async function getClassifier(req: Request, res: Response) {
    const p = params(req);
    res.json({ data: toWireClassifier(await classifiers.get(orgOf(req), p.id, p.classifier_id)) });
  });

  api.add('patch', '/workspaces/:id/classifiers/:classifier_id', mgmt, one, validate({ body: 'classifiers.update.body' }), async function updateClassifier(req: Request, res: Response) {
    const p = params(req);
    res.json({ data: toWireClassifier(await classifiers.update(orgOf(req), p.id, p.classifier_id, req.valid.body as ClassifierInput)) });
  });

  api.add('delete', '/workspaces/:id/classifiers/:classifier_id', mgmt, one, async function deleteClassifier(req: Request, res: Response) {
    const p = params(req);
    await classifiers.delete(orgOf(req), p.id, p.classifier_id);
    res.json({ deleted: true });
  });
}
