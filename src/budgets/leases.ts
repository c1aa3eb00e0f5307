/**
 * Budget leases: a replica reserves a batch of budget (a lease, e.g. 64 requests' worth) in one
 * script call and admits the next requests against it in memory, instead of two Redis scripts
 * (reserve, settle) per request: the round trips are most of a budgeted request's cost (see
 * bench/README.md for the A/B that keeps this).
 *
 * Why this stays exact across replicas:
 * - A lease is an ordinary hold (id `lease:…`) in every counter the request's limits use, so the
 *   reserve script counts it like any in-flight request: nothing is ever admitted past a limit.
 * - Leases are granted only while the tightest limit has at least `HEADROOM_LEASES` leases' worth
 *   of room left, so near a limit every request is decided one by one, as before.
 * - A request that would fit except for other replicas' unused lease capacity is not refused:
 *   the script answers `leased` and the caller waits for leases to close (each closes for new
 *   requests after `ms`, and is settled to its real spend once its last request finishes).
 * - A lease is bound to its counters *and* limits: a changed budget or key limit, or a new
 *   period, starts a new lease at once; the old one only finishes what it admitted.
 *
 * Renewal: once a lease is three quarters committed or three quarters through its time, the next
 * request it admits also asks for its successor in the background ({@link LeaseBook.renewal}),
 * under the same room rule; the successor replaces it when granted. So steady traffic on a set
 * of limits never waits for a reserve round trip.
 *
 * What a crash costs: the spend of requests finished on a lease not yet settled (at most one
 * lease's worth per key) is missing from the Redis counter until the period ends — the same kind
 * of loss as an in-flight request's settle today, bounded by the lease size. A settle that fails
 * while the replica lives is retried (SETTLE_RETRY_MS). The usage table (the durable truth) has
 * every record either way.
 * @module
 */
import type { Reservation } from './types';
import { toNanos } from './limits';
import { leaseCloseWaitMs, leaseFits } from '../kv/lease-policy';

/** Settles a closed lease: replaces its hold with `spentNanos` of spend (see SETTLE); false when Redis could not be reached. */
export type SettleLease = (leaseId: string, keys: string[], spentNanos: number) => Promise<boolean>;

/**
 * Delays before the retries of a lease settle that failed (Redis unreachable): a lease carries up
 * to 64 requests' spend, which the counters would otherwise miss. Retrying is safe: a settle whose
 * hold has expired meanwhile still adds the spend; one that did run although its reply was lost
 * adds it twice, which only refuses early.
 */
export const SETTLE_RETRY_MS: readonly number[] = [250, 1000, 4000, 15000];

/** Share of a lease (committed, or time gone) after which its successor is asked for. */
const RENEW_AT = 0.75;

/** One lease: its hold in Redis and what this replica has admitted against it. */
interface Lease {
  readonly signature: string;
  readonly id: string;
  readonly keys: string[];
  readonly amountNanos: number;
  /** Estimates of running requests plus the real cost of finished ones. */
  committed: number;
  spent: number;
  running: number;
  closed: boolean;
  settled: boolean;
  /** performance.now() when granted, and whether its successor has been asked for. */
  readonly openedAt: number;
  renewing: boolean;
  timer: NodeJS.Timeout | null;
}

/** Options for {@link LeaseBook}. */
export interface LeaseBookOptions {
  /** Requests' worth (of the opening request's estimate) per lease; 0 turns leases off. */
  requests: number;
  /** A lease admits requests for at most this long. */
  ms: number;
  settle: SettleLease;
}

/** The replica's open leases, one per set of limits (counters and their values). */
export class LeaseBook {
  private readonly open = new Map<string, Lease>();
  /** Signatures whose lease is being asked for (one request at a time per signature). */
  private readonly pending = new Set<string>();
  private readonly settling = new Set<Promise<void>>();
  /** Set by {@link closeAll}: shutdown makes one last attempt per lease and no timed retries. */
  private closing = false;

  constructor(private readonly o: LeaseBookOptions) {}

  get enabled(): boolean {
    return this.o.requests > 0;
  }

  /** How long a request kept out by live leases waits before asking again: they close within `ms`. */
  get closeWaitMs(): number {
    return leaseCloseWaitMs(this.o.ms);
  }

  /**
   * The lease amount to ask for after a request of `estimateNanos` left `roomNanos` of room, or
   * 0 (leases off, one open or being asked for, or too little room). A non-zero answer must be
   * followed by {@link add} or {@link abandon}.
   */
  begin(signature: string, estimateNanos: number, roomNanos: number): number {
    if (!this.enabled || estimateNanos <= 0 || this.open.has(signature) || this.pending.has(signature)) return 0;
    const amount = estimateNanos * this.o.requests;
    if (!leaseFits(amount, roomNanos)) return 0;
    this.pending.add(signature);
    return amount;
  }

  /** The lease asked for by {@link begin} was not granted. */
  abandon(signature: string): void {
    this.pending.delete(signature);
  }

  /** Record a granted lease (its hold is in place). */
  add(signature: string, id: string, keys: string[], amountNanos: number): void {
    this.pending.delete(signature);
    const lease: Lease = {
      signature,
      id,
      keys,
      amountNanos,
      committed: 0,
      spent: 0,
      running: 0,
      closed: false,
      settled: false,
      openedAt: performance.now(),
      renewing: false,
      timer: null,
    };
    if (this.closing) {
      this.close(lease); // granted after shutdown began: give the hold back at once
      return;
    }
    const previous = this.open.get(signature);
    if (previous) this.close(previous);
    this.open.set(signature, lease);
    lease.timer = setTimeout(() => this.close(lease), this.o.ms);
    lease.timer.unref();
  }

  /**
   * The amount to renew `signature`'s open lease with, once it is {@link RENEW_AT} committed or
   * through its time and no successor has been asked for; else 0. A non-zero answer must be
   * followed by {@link add} or {@link abandon}.
   */
  renewal(signature: string): number {
    const lease = this.open.get(signature);
    if (!lease || lease.renewing || this.closing || this.pending.has(signature)) return 0;
    if (lease.committed < lease.amountNanos * RENEW_AT && performance.now() < lease.openedAt + this.o.ms * RENEW_AT)
      return 0;
    lease.renewing = true;
    this.pending.add(signature);
    return lease.amountNanos;
  }

  /** Admit a request of `estimateNanos` on the open lease for `signature`, or null (none, or too little left). */
  take(signature: string, estimateNanos: number): Reservation | null {
    const lease = this.open.get(signature);
    if (!lease) return null;
    if (lease.committed + estimateNanos > lease.amountNanos) {
      this.close(lease);
      return null;
    }
    lease.committed += estimateNanos;
    lease.running++;
    let done = false;
    const finish = (nanos: number): Promise<void> => {
      if (done) return Promise.resolve();
      done = true;
      lease.committed += nanos - estimateNanos;
      lease.spent += nanos;
      lease.running--;
      this.finishIfDone(lease);
      return Promise.resolve();
    };
    return { settle: (usd) => finish(toNanos(Math.max(0, usd))), release: () => finish(0) };
  }

  /** Close every lease and wait for their settles (shutdown). */
  async closeAll(): Promise<void> {
    this.closing = true;
    for (const lease of [...this.open.values()]) this.close(lease);
    await Promise.allSettled([...this.settling]);
  }

  private close(lease: Lease): void {
    lease.closed = true;
    if (lease.timer) clearTimeout(lease.timer);
    lease.timer = null;
    if (this.open.get(lease.signature) === lease) this.open.delete(lease.signature);
    this.finishIfDone(lease);
  }

  private finishIfDone(lease: Lease): void {
    if (!lease.closed || lease.running > 0 || lease.settled) return;
    lease.settled = true;
    this.attemptSettle(lease, 0);
  }

  private attemptSettle(lease: Lease, attempt: number): void {
    const p = this.o.settle(lease.id, lease.keys, lease.spent).then((ok) => {
      const delay = SETTLE_RETRY_MS[attempt];
      if (ok || this.closing || delay === undefined) return;
      setTimeout(() => this.attemptSettle(lease, attempt + 1), delay).unref();
    });
    this.settling.add(p);
    void p.finally(() => this.settling.delete(p));
  }
}
