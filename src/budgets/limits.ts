/**
 * Which spending limits apply to a request, each as a counter of the current period: one per
 * budget of the key's workspace, plus the key's own `limit` (over its `limit_reset` interval,
 * or its lifetime). Counter keys carry the workspace id as a Redis Cluster hash tag so that one
 * script can touch all of them.
 * @module
 */
import type { ApiKeyRecord } from '../keys/types';
import type { BudgetRecord, SpendScope } from './repository';
import { periodOf, type Interval, type Period } from './periods';

/** One limit a reservation is checked against. */
export interface LimitCounter {
  source: 'workspace_budget' | 'key_limit';
  interval: Interval;
  period: Period;
  limitUsd: number;
  /** Whose recorded spend rebuilds the counter. */
  scope: SpendScope;
  /** `spent` and `holds` keys (unprefixed). */
  spentKey: string;
  holdsKey: string;
}

/** The unprefixed key stem of a workspace budget's counters in `period` (`…:spent`, `…:holds`). */
export function budgetCounterBase(workspaceId: string, period: Period): string {
  return `budget:{${workspaceId}}:${period.interval}:${period.id}`;
}

/** Every limit that applies to `key` at `nowMs`, workspace budgets first. */
export function limitsFor(key: ApiKeyRecord, budgets: readonly BudgetRecord[], nowMs: number): LimitCounter[] {
  const tag = `{${key.workspaceId}}`;
  const out: LimitCounter[] = budgets.map((b) => {
    const period = periodOf(b.interval, nowMs);
    const base = budgetCounterBase(key.workspaceId, period);
    return {
      source: 'workspace_budget' as const,
      interval: b.interval,
      period,
      limitUsd: b.limitUsd,
      scope: { workspaceId: key.workspaceId },
      spentKey: `${base}:spent`,
      holdsKey: `${base}:holds`,
    };
  });
  if (key.limitUsd !== null) {
    const interval: Interval = key.limitReset ?? 'lifetime';
    const period = periodOf(interval, nowMs);
    const base = `keylimit:${tag}:${key.hash}:${interval}:${period.id}`;
    out.push({
      source: 'key_limit',
      interval,
      period,
      limitUsd: key.limitUsd,
      scope: { keyHash: key.hash },
      spentKey: `${base}:spent`,
      holdsKey: `${base}:holds`,
    });
  }
  return out;
}

/** USD → integer nano-USD, the unit of every counter (exact integer arithmetic in Redis). */
export function toNanos(usd: number, round: 'up' | 'nearest' = 'nearest'): number {
  const n = usd * 1e9;
  return round === 'up' ? Math.ceil(n - 1e-6) : Math.round(n);
}

/** Integer nano-USD → USD. */
export function fromNanos(nanos: number): number {
  return Math.round(nanos) / 1e9;
}
