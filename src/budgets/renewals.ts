/**
 * Holds live as long as their request: the replica's live holds (requests' and leases') are
 * renewed while they run, so a stream longer than the reservation TTL never has its budget
 * released under it (a second request admitted against that room would overspend). One timer per
 * replica walks them; a hold is renewed once it is a third of the TTL old, so requests shorter
 * than that never cost a renewal. A replica that dies stops renewing, and its holds expire one TTL
 * after their last renewal.
 * @module
 */
import type { Kv } from '../kv/kv';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import { RENEW } from './scripts/renew';

/** What {@link HoldRenewals} needs. */
export interface HoldRenewalsOptions {
  kv: Kv;
  metrics: Metrics;
  logger: Logger;
  clock: () => number;
  /** The reservation TTL: each renewal moves a hold's expiry to now + this. */
  ttlMs: number;
}

/** One live hold: where it is, and when it is next due. */
interface LiveHold {
  keys: string[];
  dueAt: number;
}

/** The replica's live holds and their renewal (see the module comment). */
export class HoldRenewals {
  private readonly live = new Map<string, LiveHold>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly o: HoldRenewalsOptions) {}

  /** Renew hold `id` (in `keys`' holds hashes) while it lives, until {@link forget}. */
  track(id: string, keys: readonly string[]): void {
    const holds = keys.filter((_, i) => i % 2 === 1); // the pairs are spent, holds
    this.live.set(id, { keys: holds, dueAt: this.o.clock() + this.every() });
    if (!this.timer) {
      this.timer = setInterval(() => void this.renewDue(), this.every());
      this.timer.unref();
    }
  }

  /** Hold `id` was settled or released: no more renewals. */
  forget(id: string): void {
    this.live.delete(id);
    if (this.live.size === 0) this.stop();
  }

  /** Renew every live hold that is due; resolves once their scripts have answered (a failure is logged, the hold renewed at the next tick). */
  async renewDue(): Promise<void> {
    const now = this.o.clock();
    const due = [...this.live].filter(([, h]) => h.dueAt <= now);
    await Promise.all(
      due.map(async ([id, hold]) => {
        try {
          await this.o.kv.run(RENEW, hold.keys, [id, now + this.o.ttlMs, this.o.ttlMs]);
          hold.dueAt = now + this.every();
        } catch (err) {
          this.o.metrics.budgetStoreErrors.inc({ operation: 'renew' });
          this.o.logger.warn('budget hold renewal failed; retried at the next tick', { reservation: id, err });
        }
      }),
    );
  }

  /** How many holds are being renewed (for tests and shutdown). */
  get size(): number {
    return this.live.size;
  }

  /** Stop the timer (shutdown, or nothing left to renew). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private every(): number {
    return Math.max(1, Math.floor(this.o.ttlMs / 3));
  }
}
