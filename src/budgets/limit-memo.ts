/**
 * The limits of a request, kept per key record: the counters of {@link limitsFor} and their
 * lease signature stay valid while the key record and its workspace's budget list are the same
 * objects (the key and budget caches hand out new ones when either changes, and never change
 * one in place) and the time is inside every counter's period. Built again per request, they
 * were two counter objects and eight strings, and the signature a fresh string that the lease
 * book's map had to flatten and hash on every lookup: about 1 % of a request's CPU.
 * @module
 */
import type { ApiKeyRecord } from '../keys/types';
import type { BudgetRecord } from './repository';
import { limitsFor, type LimitCounter } from './limits';

/** A request's limits: see {@link LimitMemo.limits}. */
export interface Limits {
  readonly counters: readonly LimitCounter[];
  /** What identifies a lease of these limits: the counters (so the periods) and each limit's value. */
  readonly signature: string;
}

interface Kept extends Limits {
  budgets: readonly BudgetRecord[];
  /** The instants (epoch ms) between which every counter's period holds: [fromMs, untilMs). */
  fromMs: number;
  untilMs: number;
}

function signatureOf(counters: readonly LimitCounter[]): string {
  let s = '';
  for (const c of counters) s += `${c.spentKey}=${c.limitUsd};`;
  return s;
}

/** An empty budget list may be a new array each time (the cache stores "none" as null). */
function sameBudgets(a: readonly BudgetRecord[], b: readonly BudgetRecord[]): boolean {
  return a === b || (a.length === 0 && b.length === 0);
}

/** Per key record, the limits last built for it (a WeakMap: a key record dropped by its cache takes them along). */
export class LimitMemo {
  private readonly kept = new WeakMap<ApiKeyRecord, Kept>();

  /** The limits that apply to `key` with `budgets` at `nowMs`, as {@link limitsFor} builds them. */
  limits(key: ApiKeyRecord, budgets: readonly BudgetRecord[], nowMs: number): Limits {
    const kept = this.kept.get(key);
    if (kept && sameBudgets(kept.budgets, budgets) && nowMs >= kept.fromMs && nowMs < kept.untilMs) return kept;
    const counters = limitsFor(key, budgets, nowMs);
    let fromMs = -Infinity;
    let untilMs = Infinity;
    for (const { period } of counters) {
      fromMs = Math.max(fromMs, period.startMs);
      untilMs = Math.min(untilMs, period.endMs ?? Infinity);
    }
    const fresh: Kept = { counters, signature: signatureOf(counters), budgets, fromMs, untilMs };
    this.kept.set(key, fresh);
    return fresh;
  }
}
