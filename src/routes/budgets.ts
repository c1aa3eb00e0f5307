/**
 * `/workspaces/{id}/budgets*` (management keys only): upsert (200 on create and update), read
 * one, list, and idempotent delete. Every answer carries the workspace-wide
 * `include_byok_in_budgets` flag beside the budget data, as the hosted service does.
 * @module
 */
import type { Request, RequestHandler, Response } from 'express';
import type { AppDeps } from '../deps';
import { currentKey } from '../auth/authenticate';
import { validate, validated } from '../http/validate';
import type { ApiRouter } from '../http/router';
import { BudgetService, toWireBudget } from '../budgets/service';
import { wireBudgetsWithStatus } from '../budgets/status';

/** Register the budget routes (called by `registerWorkspaceRoutes`). */
export function registerBudgetRoutes(api: ApiRouter, deps: AppDeps, mgmt: RequestHandler): void {
  const budgets = new BudgetService(deps.db, (workspaceId) => deps.budgetCache.invalidate(workspaceId));
  const byInterval = validate({ params: 'budgets.interval.params' });
  const paramsOf = (req: Request) => validated(req, 'budgets.interval.params');
  const orgOf = (req: Request) => currentKey(req).orgId;

  api.add(
    'put',
    '/workspaces/:id/budgets/:interval',
    mgmt,
    validate({ params: 'budgets.interval.params', body: 'budgets.upsert.body' }),
    async function upsertBudget(req: Request, res: Response) {
      const { id, interval } = paramsOf(req);
      const body = validated(req, 'budgets.upsert.body');
      const view = await budgets.upsert(orgOf(req), id, interval, body.limit_usd, body.include_byok_in_budgets);
      res.json({ data: toWireBudget(view.data), include_byok_in_budgets: view.includeByokInBudgets });
    },
  );

  api.add(
    'get',
    '/workspaces/:id/budgets/:interval',
    mgmt,
    byInterval,
    async function getBudget(req: Request, res: Response) {
      const { id, interval } = paramsOf(req);
      const view = await budgets.get(orgOf(req), id, interval);
      const [data] = await wireBudgetsWithStatus(deps, [view.data], deps.clock());
      res.json({ data, include_byok_in_budgets: view.includeByokInBudgets });
    },
  );

  api.add(
    'get',
    '/workspaces/:id/budgets',
    mgmt,
    validate({ params: 'workspaces.ref.params' }),
    async function listBudgets(req: Request, res: Response) {
      const view = await budgets.list(orgOf(req), validated(req, 'workspaces.ref.params').id);
      res.json({
        data: await wireBudgetsWithStatus(deps, view.data, deps.clock()),
        include_byok_in_budgets: view.includeByokInBudgets,
      });
    },
  );

  api.add(
    'delete',
    '/workspaces/:id/budgets/:interval',
    mgmt,
    byInterval,
    async function deleteBudget(req: Request, res: Response) {
      const { id, interval } = paramsOf(req);
      await budgets.delete(orgOf(req), id, interval);
      res.json({ deleted: true });
    },
  );
}
