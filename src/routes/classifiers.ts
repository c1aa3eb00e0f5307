/**
 * `/workspaces/{id}/classifiers[/{classifier_id}]` (management keys only): workspace
 * classifiers. `{id}` is a workspace UUID or slug; classifier ids are UUIDs. Create answers 201,
 * delete `{"deleted":true}`; another organization's workspace or classifier is 404.
 * @module
 */
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey, requireManagementKey } from '../auth/authenticate';
import { validate, validated } from '../http/validate';
import type { ApiRouter } from '../http/router';
import { toWireClassifier } from '../classifiers/types';

/** Register the classifier routes. */
export function registerClassifierRoutes(api: ApiRouter, deps: AppDeps): void {
  const { classifiers } = deps;
  const mgmt = requireManagementKey();
  const orgOf = (req: Request) => currentKey(req).orgId;
  const params = (req: Request) => validated(req, 'classifiers.ref.params');
  const one = validate({ params: 'classifiers.ref.params' });

  api.add(
    'post',
    '/workspaces/:id/classifiers',
    mgmt,
    validate({ params: 'workspaces.ref.params', body: 'classifiers.create.body' }),
    async function createClassifier(req: Request, res: Response) {
      const { id } = validated(req, 'workspaces.ref.params');
      res.status(201).json({
        data: toWireClassifier(await classifiers.create(orgOf(req), id, validated(req, 'classifiers.create.body'))),
      });
    },
  );

  api.add(
    'get',
    '/workspaces/:id/classifiers',
    mgmt,
    validate({ params: 'workspaces.ref.params' }),
    async function listClassifiers(req: Request, res: Response) {
      res.json({
        data: (await classifiers.list(orgOf(req), validated(req, 'workspaces.ref.params').id)).map(toWireClassifier),
      });
    },
  );

  api.add(
    'get',
    '/workspaces/:id/classifiers/:classifier_id',
    mgmt,
    one,
    async function getClassifier(req: Request, res: Response) {
      const p = params(req);
      res.json({ data: toWireClassifier(await classifiers.get(orgOf(req), p.id, p.classifier_id)) });
    },
  );

  api.add(
    'patch',
    '/workspaces/:id/classifiers/:classifier_id',
    mgmt,
    one,
    validate({ body: 'classifiers.update.body' }),
    async function updateClassifier(req: Request, res: Response) {
      const p = params(req);
      res.json({
        data: toWireClassifier(
          await classifiers.update(orgOf(req), p.id, p.classifier_id, validated(req, 'classifiers.update.body')),
        ),
      });
    },
  );

  api.add(
    'delete',
    '/workspaces/:id/classifiers/:classifier_id',
    mgmt,
    one,
    async function deleteClassifier(req: Request, res: Response) {
      const p = params(req);
      await classifiers.delete(orgOf(req), p.id, p.classifier_id);
      res.json({ deleted: true });
    },
  );
}
