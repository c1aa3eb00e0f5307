/**
 * Completion slices: a chat request under a limit does not hold its worst case (its prompt plus
 * `max_tokens` of completion, which coding agents set to the model's whole output) for its whole
 * life. It is admitted on its prompt plus a first slice of completion, and as its answer streams
 * the hold grows one slice at a time ({@link SlicedReservation.extend}); a slice that does not fit
 * ends the answer as a length stop (the door's). Each slice is an ordinary reservation of the
 * guard (a lease's share or its own hold in Redis), so the limits stay exact across replicas, a
 * crashed replica's slices expire like any hold, and the settle of the whole is spread over the
 * slices, each capped at its own hold: spend never passes a limit.
 * @module
 */
import type { Reservation } from './types';

/**
 * What an answer the budget ended says so with: a whole answer's `metadata`, the last event of a
 * stream (beside the door's length stop: `finish_reason: "length"`, `stop_reason: "max_tokens"`).
 */
export const BUDGET_STOP = {
  stopped_by: 'budget',
  message: 'The answer was cut: the budget or key limit had no room for its next slice.',
} as const;

/** The native finish reason an answer the budget ended is recorded and sent with. */
export const BUDGET_NATIVE_STOP = 'budget';

/** What an answer in progress may ask of its budget: one more slice of `usd`; false when it does not fit (or the guard could not be asked). */
export interface SliceBudget {
  extend(usd: number): Promise<boolean>;
  /** The USD held so far: what the answer may be charged at most. */
  readonly heldUsd: number;
}

/** One hold and the USD it was asked for. */
interface Slice {
  reservation: Reservation;
  usd: number;
}

/**
 * A request's first reservation plus the slices added while it runs, settled or released as one.
 * A slice granted after the request was settled (its reserve was still in flight) is awaited by
 * the settle and given back with the rest, so nothing is left held by a client that left mid-slice.
 */
export class SlicedReservation implements Reservation, SliceBudget {
  private readonly slices: Slice[];
  private readonly pending = new Set<Promise<boolean>>();
  private closed = false;

  /** @param more - a reservation of one more slice (rejects, a 402 or a 503, when it cannot be made) */
  constructor(
    first: Reservation,
    firstUsd: number,
    private readonly more: (usd: number) => Promise<Reservation>,
  ) {
    this.slices = [{ reservation: first, usd: firstUsd }];
  }

  /** The USD held so far (the first reservation and every slice granted). */
  get heldUsd(): number {
    return this.slices.reduce((sum, s) => sum + s.usd, 0);
  }

  extend(usd: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    const asked = this.more(usd).then(
      (reservation) => {
        this.slices.push({ reservation, usd });
        return true;
      },
      () => false,
    );
    this.pending.add(asked);
    void asked.finally(() => this.pending.delete(asked));
    return asked;
  }

  /** Spread `actualUsd` over the slices in order, each capped at its own hold (the guard caps and counts what is above); the rest are released. */
  async settle(actualUsd: number): Promise<void> {
    await this.close();
    let left = Number.isFinite(actualUsd) ? Math.max(0, actualUsd) : Number.POSITIVE_INFINITY;
    const last = this.slices.length - 1;
    await Promise.all(
      this.slices.map((s, i) => {
        // The last slice takes whatever is left, so a cost above every hold still reaches the guard's cap and its count.
        const share = i === last ? left : Math.min(left, s.usd);
        left -= share;
        return share > 0 ? s.reservation.settle(share) : s.reservation.release();
      }),
    );
  }

  async release(): Promise<void> {
    await this.close();
    await Promise.all(this.slices.map((s) => s.reservation.release()));
  }

  /** No slice from now on; wait for the ones being asked for. */
  private async close(): Promise<void> {
    this.closed = true;
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
