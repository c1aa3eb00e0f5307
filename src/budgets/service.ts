/**
 * Workspace budget management. Limits must strictly decrease as the interval narrows
 * (lifetime > monthly > weekly > daily); a change that breaks the order is refused with a 400
 * naming the conflicting budget. Changes are serialised per workspace by a row lock, so two
 * concurrent PUTs cannot together break the order.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../store/db';
import { NotFoundError, ValidationError } from '../errors';
import { requireWorkspace } from '../workspaces/service';
import { updateWorkspace } from '../workspaces/repository';
import { INTERVALS, type Interval } from './periods';
import * as repo from './repository';
import type { BudgetRecord } from './repository';
import type { BudgetStatus } from './status';
import { roundUsd } from '../catalog/usd';
import type { Budget, BudgetSettings } from '../wire/types';

/** A budget plus the workspace-wide BYOK flag, as every budget route answers. */
export interface BudgetView<T> {
  data: T;
  includeByokInBudgets: boolean;
}

/**
 * `WorkspaceBudget` on the wire; `reset_interval` echoes the interval (`lifetime` too, as the spec
 * says). Reads add where it stands now (`spent_usd`, `reserved_usd`, `period_start`, `resets_at`).
 */
export function toWireBudget(b: BudgetRecord): BudgetSettings;
export function toWireBudget(b: BudgetRecord, status: BudgetStatus): Budget;
export function toWireBudget(b: BudgetRecord, status?: BudgetStatus): Budget | BudgetSettings {
  const wire = {
    id: b.id,
    workspace_id: b.workspaceId,
    limit_usd: b.limitUsd,
    reset_interval: b.interval,
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
  };
  if (!status) return wire;
  return {
    ...wire,
    spent_usd: roundUsd(status.spentUsd),
    reserved_usd: status.reservedUsd === null ? null : roundUsd(status.reservedUsd),
    period_start: status.periodStart?.toISOString() ?? null,
    resets_at: status.resetsAt?.toISOString() ?? null,
  };
}

/** The first budget that `limitUsd` at `interval` would put out of order, or undefined. */
export function orderConflict(
  existing: BudgetRecord[],
  interval: Interval,
  limitUsd: number,
): BudgetRecord | undefined {
  const rank = INTERVALS.indexOf(interval);
  return existing.find((b) => {
    const other = INTERVALS.indexOf(b.interval);
    if (other === rank) return false;
    return other < rank ? b.limitUsd >= limitUsd : b.limitUsd <= limitUsd;
  });
}

/** Budget operations bound to one database. */
export class BudgetService {
  /**
   * @param changed - called with the workspace id after a committed change, so the enforcement
   *   path's budget cache drops it on every replica
   */
  constructor(
    private readonly db: Database,
    private readonly changed: (workspaceId: string) => Promise<void> = () => Promise.resolve(),
  ) {}

  /** Create or update the budget of `interval`; optionally set the workspace-wide BYOK flag. */
  async upsert(
    orgId: string,
    ref: string,
    interval: Interval,
    limitUsd: number,
    includeByok?: boolean,
  ): Promise<BudgetView<BudgetRecord>> {
    const view = await this.db.transaction(async (tx) => {
      const ws = await requireWorkspace(tx, orgId, ref, 'update');
      const conflict = orderConflict(await repo.listBudgets(tx, ws.id), interval, limitUsd);
      if (conflict) {
        const wider = INTERVALS.indexOf(conflict.interval) > INTERVALS.indexOf(interval);
        const message =
          `The ${interval} budget (${limitUsd} USD) must be ${wider ? 'lower' : 'higher'} than the ${conflict.interval} budget ` +
          `(${conflict.limitUsd} USD): limits must strictly decrease lifetime > monthly > weekly > daily`;
        throw new ValidationError(
          [{ path: 'body.limit_usd', message: `conflicts with the ${conflict.interval} budget` }],
          message,
        );
      }
      const budget = await repo.upsertBudget(tx, randomUUID(), ws.id, interval, limitUsd);
      let flag = ws.includeByokInBudgets;
      if (includeByok !== undefined && includeByok !== flag) {
        flag =
          (await updateWorkspace(tx, orgId, ws.id, { includeByokInBudgets: includeByok }))?.includeByokInBudgets ??
          includeByok;
      }
      return { data: budget, includeByokInBudgets: flag };
    });
    await this.changed(view.data.workspaceId);
    return view;
  }

  /** One budget, or 404 when the workspace or the budget does not exist. */
  async get(orgId: string, ref: string, interval: Interval): Promise<BudgetView<BudgetRecord>> {
    const ws = await requireWorkspace(this.db, orgId, ref);
    const budget = (await repo.listBudgets(this.db, ws.id)).find((b) => b.interval === interval);
    if (!budget) throw new NotFoundError();
    return { data: budget, includeByokInBudgets: ws.includeByokInBudgets };
  }

  /** All budgets of a workspace, narrowest first. */
  async list(orgId: string, ref: string): Promise<BudgetView<BudgetRecord[]>> {
    const ws = await requireWorkspace(this.db, orgId, ref);
    return { data: await repo.listBudgets(this.db, ws.id), includeByokInBudgets: ws.includeByokInBudgets };
  }

  /** Delete a budget; idempotent, but the workspace must exist. */
  async delete(orgId: string, ref: string, interval: Interval): Promise<void> {
    const ws = await requireWorkspace(this.db, orgId, ref);
    await repo.deleteBudget(this.db, ws.id, interval);
    await this.changed(ws.id);
  }
}
