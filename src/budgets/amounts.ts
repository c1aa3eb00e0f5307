/**
 * Amounts the budget scripts are given. Redis adds them with INCRBY, which takes only integers
 * written as plain digits, so whatever a request's cost turned out to be (an upstream's figure
 * gone wrong included), what reaches a script is a whole number of nano-USD in a range where a
 * double is exact and prints without an exponent. A settle never adds more than its hold.
 * @module
 */
import { toNanos } from './limits';

/** The largest amount (nano-USD, about 9 million USD) one script call carries. */
export const MAX_NANOS = Number.MAX_SAFE_INTEGER;

/**
 * `nanos` as an amount the scripts accept: rounded into `[0, MAX_NANOS]`. Not a number → the
 * maximum, so an estimate nobody can compute is refused by any limit rather than admitted free.
 */
export function safeNanos(nanos: number): number {
  if (Number.isNaN(nanos)) return MAX_NANOS;
  return Math.min(MAX_NANOS, Math.max(0, Math.round(nanos)));
}

/**
 * What settling a hold of `heldNanos` to a cost of `usd` adds to the counters: the cost, or the
 * hold when the cost is above it or not a finite number (`capped`). A negative cost adds 0.
 */
export function settleNanos(usd: number, heldNanos: number): { nanos: number; capped: boolean } {
  const held = safeNanos(heldNanos);
  if (!Number.isFinite(usd)) return { nanos: held, capped: true };
  const nanos = safeNanos(toNanos(Math.max(0, usd)));
  return nanos > held ? { nanos: held, capped: true } : { nanos, capped: false };
}
