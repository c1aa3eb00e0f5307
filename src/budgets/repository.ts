/**
 * SQL for workspace budgets (one per workspace and interval) and the spend sums that rebuild
 * lost Redis counters from the durable usage table.
 * @module
 */
import type { Queryable } from '../store/db';
import type { Interval } from './periods';

/** A stored budget. */
export interface BudgetRecord {
  id: string;
  workspaceId: string;
  interval: Interval;
  limitUsd: number;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  id: string;
  workspace_id: string;
  reset_interval: Interval;
  limit_usd: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, workspace_id, reset_interval, limit_usd, created_at, updated_at';
const ORDER = `CASE reset_interval WHEN 'daily' THEN 1 WHEN 'weekly' THEN 2 WHEN 'monthly' THEN 3 ELSE 4 END`;

const toRecord = (r: Row): BudgetRecord => ({
  id: r.id,
  workspaceId: r.workspace_id,
  interval: r.reset_interval,
  limitUsd: Number(r.limit_usd),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** A workspace's budgets, narrowest interval first. */
export async function listBudgets(q: Queryable, workspaceId: string): Promise<BudgetRecord[]> {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM workspace_budgets WHERE workspace_id = $1 ORDER BY ${ORDER}`,
    [workspaceId],
  );
  return rows.map(toRecord);
}

/** Create the budget or change its limit (keeping `created_at`, moving `updated_at`). */
export async function upsertBudget(
  q: Queryable,
  id: string,
  workspaceId: string,
  interval: Interval,
  limitUsd: number,
): Promise<BudgetRecord> {
  const rows = await q.query<Row>(
    `INSERT INTO workspace_budgets (id, workspace_id, reset_interval, limit_usd) VALUES ($1, $2, $3, $4)
     ON CONFLICT (workspace_id, reset_interval)
       DO UPDATE SET limit_usd = EXCLUDED.limit_usd, updated_at = clock_timestamp()
     RETURNING ${COLUMNS}`,
    [id, workspaceId, interval, limitUsd],
  );
  return toRecord(rows[0] as Row);
}

/** Delete a budget; idempotent. */
export async function deleteBudget(q: Queryable, workspaceId: string, interval: Interval): Promise<void> {
  await q.query('DELETE FROM workspace_budgets WHERE workspace_id = $1 AND reset_interval = $2', [
    workspaceId,
    interval,
  ]);
}

/** Whose recorded spend a sum covers. */
export type SpendScope = { workspaceId: string } | { keyHash: string };

/** Recorded spend (USD) of a workspace or key in `[startMs, endMs)`; `endMs` null = open. */
export async function recordedSpend(
  q: Queryable,
  scope: SpendScope,
  startMs: number,
  endMs: number | null,
): Promise<number> {
  const [column, value] = 'workspaceId' in scope ? ['workspace_id', scope.workspaceId] : ['key_hash', scope.keyHash];
  const rows = await q.query<{ s: number }>(
    `SELECT COALESCE(SUM(cost_usd), 0)::double precision AS s FROM generations
      WHERE ${column} = $1 AND created_at >= $2 AND ($3::timestamptz IS NULL OR created_at < $3::timestamptz)`,
    [value, new Date(startMs), endMs === null ? null : new Date(endMs)],
  );
  return Number(rows[0]?.s ?? 0);
}
