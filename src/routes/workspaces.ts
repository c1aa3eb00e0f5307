/**
 * `/workspaces*` (management keys only): workspace CRUD, bulk membership changes and, through
 * {@link registerBudgetRoutes}, budgets. `{id}` is a workspace UUID or slug everywhere.
 * `POST /workspaces` answers 201; every other route 200, deletes with `{"deleted":true}`.
 * @module
 */
import type { Request, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey, requireManagementKey } from '../auth/authenticate';
import { validate, validated } from '../http/validate';
import type { ApiRouter } from '../http/router';
import { workspaceService } from '../workspaces/contents';
import { toWireWorkspace } from '../workspaces/wire';
import { parseIncludes, withIncludes } from '../workspaces/includes';
import { MemberService, toWireMember } from '../members/service';
import { registerBudgetRoutes } from './budgets';

/** Register workspace, member and budget routes. */
export function registerWorkspaceRoutes(api: ApiRouter, deps: AppDeps): void {
  const workspaces = workspaceService(deps.db, deps.files);
  const members = new MemberService(deps.db);
  const mgmt = requireManagementKey();
  const byRef = validate({ params: 'workspaces.ref.params' });
  const refOf = (req: Request) => validated(req, 'workspaces.ref.params').id;
  const orgOf = (req: Request) => currentKey(req).orgId;

  api.add(
    'post',
    '/workspaces',
    mgmt,
    validate({ body: 'workspaces.create.body' }),
    async function createWorkspace(req: Request, res: Response) {
      const ws = await workspaces.create(
        orgOf(req),
        validated(req, 'workspaces.create.body'),
        currentKey(req).creatorUserId,
      );
      res.status(201).json({ data: toWireWorkspace(ws) });
    },
  );

  api.add(
    'get',
    '/workspaces',
    mgmt,
    validate({ query: 'workspaces.list.query' }),
    async function listWorkspaces(req: Request, res: Response) {
      const { offset, limit, include } = validated(req, 'workspaces.list.query');
      const page = await workspaces.list(orgOf(req), offset, limit);
      const data = include
        ? await withIncludes(deps, page.data, parseIncludes(include))
        : page.data.map(toWireWorkspace);
      res.json({ data, total_count: page.total });
    },
  );

  api.add('get', '/workspaces/:id', mgmt, byRef, async function getWorkspace(req: Request, res: Response) {
    res.json({ data: toWireWorkspace(await workspaces.get(orgOf(req), refOf(req))) });
  });

  api.add(
    'patch',
    '/workspaces/:id',
    mgmt,
    byRef,
    validate({ body: 'workspaces.update.body' }),
    async function updateWorkspace(req: Request, res: Response) {
      const ws = await workspaces.update(orgOf(req), refOf(req), validated(req, 'workspaces.update.body'));
      await deps.embeddingsCache.settings.changed(ws.id);
      res.json({ data: toWireWorkspace(ws) });
    },
  );

  api.add(
    'delete',
    '/workspaces/:id',
    mgmt,
    validate({ params: 'workspaces.ref.params', query: 'workspaces.delete.query' }),
    async function deleteWorkspace(req: Request, res: Response) {
      await workspaces.delete(orgOf(req), refOf(req));
      res.json({ deleted: true });
    },
  );

  const userIdsBody = validate({ params: 'workspaces.ref.params', body: 'members.change.body' });
  const userIdsOf = (req: Request) => validated(req, 'members.change.body').user_ids;

  api.add(
    'post',
    '/workspaces/:id/members/add',
    mgmt,
    userIdsBody,
    async function addMembers(req: Request, res: Response) {
      const { added, members: list } = await members.add(orgOf(req), refOf(req), userIdsOf(req));
      res.json({ added_count: added, data: list.map(toWireMember) });
    },
  );

  api.add(
    'post',
    '/workspaces/:id/members/remove',
    mgmt,
    userIdsBody,
    async function removeMembers(req: Request, res: Response) {
      res.json({ removed_count: await members.remove(orgOf(req), refOf(req), userIdsOf(req)) });
    },
  );

  api.add(
    'get',
    '/workspaces/:id/members',
    mgmt,
    validate({ params: 'workspaces.ref.params', query: 'members.list.query' }),
    async function listMembers(req: Request, res: Response) {
      const { offset, limit } = validated(req, 'members.list.query');
      const page = await members.list(orgOf(req), refOf(req), offset, limit);
      res.json({ data: page.data.map(toWireMember), total_count: page.total });
    },
  );

  registerBudgetRoutes(api, deps, mgmt);
}
