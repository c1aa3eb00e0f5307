/**
 * `GET /workspaces?include=budgets,members`: each listed workspace with its budgets (and where
 * each stands now) and the first page of its members, so a page showing every workspace's budgets
 * (the dashboard's Workspaces page) loads in one call instead of one per workspace.
 * @module
 */
import type { AppDeps } from '../deps';
import { listBudgets } from '../budgets/repository';
import { wireBudgetsWithStatus } from '../budgets/status';
import { listMembers } from '../members/repository';
import { toWireMember } from '../members/service';
import type { WorkspaceRecord } from './repository';
import { toWireWorkspace } from './wire';

/** Members included per workspace (the members route pages through the rest). */
export const INCLUDED_MEMBERS = 50;

/** Parse the validated `include` value (`budgets`, `members` or both, comma-separated). */
export function parseIncludes(value: string | undefined): ReadonlySet<string> {
  return new Set(value ? value.split(',') : []);
}

/** The listed workspaces on the wire, with what `include` asks for. */
export async function withIncludes(
  deps: Pick<AppDeps, 'db' | 'kv' | 'metrics' | 'clock'>,
  list: readonly WorkspaceRecord[],
  include: ReadonlySet<string>,
) {
  const now = deps.clock();
  return Promise.all(
    list.map(async (ws) => {
      const wire: Record<string, unknown> = toWireWorkspace(ws);
      if (include.has('budgets')) {
        wire.budgets = await wireBudgetsWithStatus(deps, await listBudgets(deps.db, ws.id), now);
      }
      if (include.has('members')) {
        const page = await listMembers(deps.db, ws, 0, INCLUDED_MEMBERS);
        wire.members = { data: page.data.map(toWireMember), total_count: page.total };
      }
      return wire;
    }),
  );
}
