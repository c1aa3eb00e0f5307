/**
 * Where a workspace budget stands now, shown beside it on read (the dashboard's progress bars):
 * the spend recorded in its current period (the usage table, as the counters are rebuilt from),
 * what open requests hold against it (the shared store's running total; null while the store is
 * unreachable), and when the period began and resets.
 * @module
 */
import type { Database } from '../store/db';
import type { Kv } from '../kv/kv';
import type { Metrics } from '../observability/metrics';
import { budgetCounterBase, fromNanos } from './limits';
import { periodOf } from './periods';
import { recordedSpend, type BudgetRecord } from './repository';
import { HELD } from './scripts/held';
import { toWireBudget } from './service';

/** A budget's standing in its current period. */
export interface BudgetStatus {
  spentUsd: number;
  reservedUsd: number | null;
  periodStart: Date | null;
  resetsAt: Date | null;
}

/** The status of `budget` at `nowMs`; a store failure leaves `reservedUsd` null and is counted (operation `status`). */
export async function budgetStatus(
  deps: { db: Database; kv: Kv; metrics: Metrics },
  budget: BudgetRecord,
  nowMs: number,
): Promise<BudgetStatus> {
  const period = periodOf(budget.interval, nowMs);
  const [spentUsd, heldNanos] = await Promise.all([
    recordedSpend(deps.db, { workspaceId: budget.workspaceId }, period.startMs, period.endMs),
    deps.kv.run(HELD, [`${budgetCounterBase(budget.workspaceId, period)}:holds`], []).catch(() => {
      deps.metrics.budgetStoreErrors.inc({ operation: 'status' });
      return null;
    }),
  ]);
  return {
    spentUsd,
    reservedUsd: heldNanos === null ? null : fromNanos(heldNanos),
    periodStart: budget.interval === 'lifetime' ? null : new Date(period.startMs),
    resetsAt: period.endMs === null ? null : new Date(period.endMs),
  };
}

/** `budgets` on the wire as the reads answer them: each with its standing at `nowMs`. */
export function wireBudgetsWithStatus(
  deps: { db: Database; kv: Kv; metrics: Metrics },
  budgets: readonly BudgetRecord[],
  nowMs: number,
) {
  return Promise.all(budgets.map(async (b) => toWireBudget(b, await budgetStatus(deps, b, nowMs))));
}
