/**
 * The Redis-backed {@link SpendGuard}: before an upstream call, one atomic script reserves the
 * request's estimate against every budget of the key's workspace and the key's own limit; the
 * returned {@link Reservation} settles it to the real cost (or releases it) afterwards. While a
 * limit has ample room, requests are admitted on a replica-local lease instead (leases.ts): two
 * Redis scripts per lease rather than per request.
 *
 * Failure policy: budgets fail closed. If the shared store (or the database holding the
 * budgets) cannot be reached, a request that has any limit is refused with 503 rather than
 * risk overspending. A request with no limit at all never touches Redis.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../store/db';
import type { Kv } from '../kv/kv';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { ApiKeyRecord } from '../keys/types';
import { PaymentRequiredError, ServiceUnavailableError } from '../errors';
import type { Reservation, SpendGuard } from './types';
import { recordedSpend, type BudgetRecord } from './repository';
import { fromNanos, limitsFor, toNanos, type LimitCounter } from './limits';
import { formatUsd } from '../catalog/usd';
import { LEASE_PREFIX, RESERVE } from './scripts/reserve';
import { LeaseBook } from './leases';
import { MAX_LEASE_WAITS, leaseFits } from '../kv/lease-policy';
import type { UsageEvent } from '../usage/types';
import { SETTLE } from './scripts/settle';
import { HoldRenewals } from './renewals';
import { safeNanos, settleNanos } from './amounts';

/** Options for {@link BudgetGuard}. */
export interface BudgetGuardOptions {
  db: Database;
  /** The workspace's budgets; a replica-coherent cache in production (one query per change, not per request). */
  budgetsOf: (workspaceId: string) => Promise<BudgetRecord[]>;
  /** The workspace's budgets if the cache has them at hand, else undefined (see {@link BudgetGuard.reserveNow}). */
  budgetsNow?: (workspaceId: string) => BudgetRecord[] | undefined;
  kv: Kv;
  metrics: Metrics;
  logger: Logger;
  clock: () => number;
  /** How long an unsettled reservation holds budget (a crashed request's hold expires after this). */
  reservationTtlMs: number;
  /**
   * Usage accepted but perhaps not yet in the usage table (the outbox's backlog). A lost counter
   * is rebuilt from the table plus these; omitted → the table alone.
   */
  pendingUsage?: () => Promise<UsageEvent[]>;
  /** Budget leases (see leases.ts): requests' worth per lease (0 = off) and how long one admits. */
  lease?: { requests: number; ms: number };
}

/** A request's hold before it is placed: see `BudgetGuard.holdFor`. */
interface Hold {
  counters: readonly LimitCounter[];
  estimate: number;
  signature: string;
}

/** Days a period counter outlives its period (kept for inspection, then Redis drops it). */
const COUNTER_GRACE_MS = 2 * 86_400_000;
/** Rebuild rounds before giving up (each round rebuilds every counter missing at that moment). */
const MAX_ROUNDS = 3;

/** The Redis keys a request's hold touches: each counter's spend and holds. */
function holdKeys(counters: readonly LimitCounter[]): string[] {
  return counters.flatMap((c) => [c.spentKey, c.holdsKey]);
}

const NOOP: Reservation = { settle: () => Promise.resolve(), release: () => Promise.resolve(), unlimited: true };

/**
 * The 402: the spec's meaning (credits are insufficient) and where the limit is managed, in the
 * message, and why this request does not fit: the limit is used up, or what the request reserves
 * (its worst case, before anything is spent) is more than the room the limit has left. A request
 * refused for its worst case spent nothing, so "used up" would send its client looking for spend
 * that does not exist. `metadata` has which limit, its amount, the spend (settled and held), the
 * room, the reservation and the reset.
 */
function refusal(c: LimitCounter, usedNanos: number, reservedNanos: number): PaymentRequiredError {
  const spend = fromNanos(usedNanos);
  const remaining = fromNanos(Math.max(0, toNanos(c.limitUsd) - usedNanos));
  const reserved = fromNanos(reservedNanos);
  const resetsAt = c.period.endMs === null ? null : new Date(c.period.endMs).toISOString();
  const workspace = 'workspaceId' in c.scope ? c.scope.workspaceId : null;
  const manage = workspace ? `PUT /api/v1/workspaces/${workspace}/budgets/${c.interval}` : 'PATCH /api/v1/keys/{hash}';
  const what = workspace
    ? `the workspace's ${c.interval} budget`
    : `this API key's ${c.interval === 'lifetime' ? '' : `${c.interval} `}spending limit`;
  const when = resetsAt ? `or wait for its reset at ${resetsAt}` : '(it never resets)';
  const why =
    remaining > 0
      ? `this request reserves up to ${formatUsd(reserved)} (its worst case; nothing is spent yet), more than the ${formatUsd(remaining)} left of ${what} of ${formatUsd(c.limitUsd)} (${formatUsd(spend)} spent or held)`
      : `${what} is used up`;
  return new PaymentRequiredError(`Insufficient credits: ${why}. Raise it with ${manage} ${when}.`, {
    limit_source: c.source,
    interval: c.interval,
    limit_usd: c.limitUsd,
    spend_usd: spend,
    remaining_usd: remaining,
    reserved_usd: reserved,
    resets_at: resetsAt,
    manage,
  });
}

/** Spend (USD) of `backlog` events that count against counter `c`'s scope and period. */
function backlogSpend(backlog: readonly UsageEvent[], c: LimitCounter): number {
  const { scope } = c;
  let usd = 0;
  for (const e of backlog) {
    const mine = 'workspaceId' in scope ? e.workspaceId === scope.workspaceId : e.keyHash === scope.keyHash;
    const at = e.createdAt.getTime();
    if (mine && at >= c.period.startMs && (c.period.endMs === null || at < c.period.endMs)) usd += e.costUsd;
  }
  return usd;
}

/** Atomic budget and key-limit enforcement over a {@link Kv} (Redis or the in-process twin). */
export class BudgetGuard implements SpendGuard {
  private readonly leases: LeaseBook;
  /** Live holds (requests' and leases'), renewed while they run. */
  readonly renewals: HoldRenewals;

  constructor(private readonly o: BudgetGuardOptions) {
    this.renewals = new HoldRenewals({ ...o, ttlMs: o.reservationTtlMs });
    this.leases = new LeaseBook({
      requests: o.lease?.requests ?? 0,
      ms: o.lease?.ms ?? 100,
      settle: (id, keys, nanos) => {
        this.renewals.forget(id);
        return this.settleHold(id, keys, nanos, 'lease');
      },
    });
  }

  /**
   * The reservation when it needs no round trip: the budgets are cached and the request has no
   * limit, or a live lease covers its estimate (nearly every request under steady load). Else
   * undefined, and the caller awaits {@link reserve}. Synchronous, so the common case costs the
   * request no promise.
   */
  reserveNow(key: ApiKeyRecord, estimatedUsd: number): Reservation | undefined {
    const budgets = this.o.budgetsNow?.(key.workspaceId);
    if (budgets === undefined) return undefined;
    const hold = this.holdFor(key, budgets, estimatedUsd, this.o.clock());
    return hold.counters.length === 0 ? NOOP : this.fromLease(hold);
  }

  async reserve(key: ApiKeyRecord, estimatedUsd: number, requestId: string): Promise<Reservation> {
    const now = this.o.clock();
    const budgets = await this.unavailableOnError(() => this.o.budgetsOf(key.workspaceId));
    const hold = this.holdFor(key, budgets, estimatedUsd, now);
    if (hold.counters.length === 0) return NOOP;
    const leased = this.fromLease(hold);
    if (leased) return leased;
    const { counters, estimate, signature } = hold;
    const keys = holdKeys(counters);
    // `r:` first: a client's X-Request-Id (which may read `lease:…`) never passes for a lease.
    const id = `r:${requestId}:${randomUUID()}`;
    const rebuild = new Map<number, string>();
    let waits = 0;
    for (let round = 0; round < MAX_ROUNDS;) {
      const at = this.o.clock();
      const reply = await this.unavailableOnError(() =>
        this.o.kv.run(RESERVE, keys, this.reserveArgs(id, estimate, at, counters, rebuild)),
      );
      if (reply.kind === 'reserved') {
        this.o.metrics.budgetReservations.inc({ result: 'reserved' });
        const amount = this.leases.begin(signature, estimate, reply.roomNanos);
        if (amount > 0) void this.openLease(signature, keys, counters, amount);
        return this.withinHold(this.reservation(id, keys), estimate);
      }
      if (reply.kind === 'leased' && waits < MAX_LEASE_WAITS) {
        waits++;
        await new Promise((resolve) => setTimeout(resolve, this.leases.closeWaitMs));
        continue;
      }
      if (reply.kind !== 'missing') {
        const c = counters[reply.index - 1] as LimitCounter;
        this.o.metrics.budgetReservations.inc({ result: 'refused' });
        this.o.metrics.budgetRefusals.inc({ limit_source: c.source, interval: c.interval });
        throw refusal(c, reply.usedNanos, estimate);
      }
      // The outbox backlog is read before the table: an event moving from one to the other in
      // between is counted twice (refusing a little early), never missed (overspending).
      const backlog = await this.unavailableOnError(async () =>
        this.o.pendingUsage ? await this.o.pendingUsage() : [],
      );
      for (const i of reply.indexes) {
        const c = counters[i - 1] as LimitCounter;
        const usd = await this.unavailableOnError(() =>
          recordedSpend(this.o.db, c.scope, c.period.startMs, c.period.endMs),
        );
        rebuild.set(i, String(toNanos(usd) + toNanos(backlogSpend(backlog, c))));
        this.o.metrics.budgetCounterRebuilds.inc();
      }
      round++;
    }
    this.o.metrics.budgetReservations.inc({ result: 'unavailable' });
    throw new ServiceUnavailableError({ reason: 'budget_counters_unstable' }, 1);
  }

  /** What a request of `estimatedUsd` must hold: its limits' counters, the estimate in nano-USD, and their lease signature. */
  private holdFor(key: ApiKeyRecord, budgets: readonly BudgetRecord[], estimatedUsd: number, now: number): Hold {
    const counters = limitsFor(key, budgets, now);
    // What identifies a lease of these limits: the counters (so their periods) and each limit's value.
    const signature = counters.map((c) => `${c.spentKey}=${c.limitUsd}`).join(';');
    return { counters, estimate: safeNanos(toNanos(Math.max(0, estimatedUsd), 'up')), signature };
  }

  /** The hold from the live lease of its limits, asking for the lease's successor when due; undefined without one. */
  private fromLease({ counters, estimate, signature }: Hold): Reservation | undefined {
    if (!this.leases.enabled) return undefined;
    const leased = this.leases.take(signature, estimate);
    if (!leased) return undefined;
    const held = this.withinHold(leased, estimate);
    this.o.metrics.budgetReservations.inc({ result: 'lease' });
    const renewal = this.leases.renewal(signature);
    if (renewal > 0) void this.openLease(signature, holdKeys(counters), counters, renewal, true);
    return held;
  }

  /**
   * `inner` with its settle capped at the hold of `heldNanos`: a cost above what was reserved (or
   * not a finite number) is charged as the hold, counted and logged, never past the limit.
   */
  private withinHold(inner: Reservation, heldNanos: number): Reservation {
    return {
      settle: (usd) => {
        const { nanos, capped } = settleNanos(usd, heldNanos);
        if (!capped) return inner.settle(usd);
        this.o.metrics.budgetSettleCapped.inc({ stage: 'settle' });
        this.o.logger.warn('settle above its reservation; capped at the hold', {
          cost_usd: usd,
          reserved_usd: fromNanos(heldNanos),
        });
        return inner.settle(fromNanos(nanos));
      },
      release: () => inner.release(),
    };
  }

  /** Settle every open lease (shutdown: their spend reaches the counters before the process ends). */
  async close(): Promise<void> {
    await this.leases.closeAll();
    this.renewals.stop();
  }

  /** ARGV of the reserve script for hold `id` of `amount` nano-USD (see RESERVE). */
  private reserveArgs(
    id: string,
    amount: number,
    now: number,
    counters: readonly LimitCounter[],
    rebuild: ReadonlyMap<number, string>,
  ): (string | number)[] {
    const args: (string | number)[] = [id, amount, now, now + this.o.reservationTtlMs, this.o.reservationTtlMs];
    counters.forEach((c, i) => {
      const ttl = c.period.endMs === null ? 0 : Math.max(1, c.period.endMs - now + COUNTER_GRACE_MS);
      args.push(toNanos(c.limitUsd), rebuild.get(i + 1) ?? '', ttl);
    });
    return args;
  }

  /**
   * Ask for a lease in the background; the request that prompted it has its own hold already. A
   * renewal has no request whose room {@link LeaseBook.begin} checked, so the room rule is checked
   * on the lease's own reply, and a hold that should not have been granted is given straight back.
   */
  private async openLease(
    signature: string,
    keys: string[],
    counters: readonly LimitCounter[],
    amount: number,
    renewal = false,
  ): Promise<void> {
    const id = `${LEASE_PREFIX}${randomUUID()}`;
    try {
      const reply = await this.o.kv.run(
        RESERVE,
        keys,
        this.reserveArgs(id, amount, this.o.clock(), counters, new Map()),
      );
      if (reply.kind === 'reserved' && (!renewal || leaseFits(amount, reply.roomNanos + amount))) {
        this.renewals.track(id, keys);
        this.leases.add(signature, id, keys, amount);
      } else {
        this.leases.abandon(signature);
        if (reply.kind === 'reserved') await this.settleHold(id, keys, 0, 'lease');
      }
    } catch (err) {
      this.leases.abandon(signature);
      this.o.metrics.budgetStoreErrors.inc({ operation: 'lease' });
      this.o.logger.warn('budget lease failed; requests reserve one by one', { err });
    }
  }

  /**
   * Settle hold `id` to `nanos` of spend; false (logged, counted) when Redis could not be reached.
   * A request's hold then expires; a lease's settle is retried (leases.ts).
   */
  private async settleHold(id: string, keys: string[], nanos: number, what: string): Promise<boolean> {
    try {
      await this.o.kv.run(SETTLE, keys, [id, safeNanos(nanos)]);
      return true;
    } catch (err) {
      this.o.metrics.budgetStoreErrors.inc({ operation: what });
      this.o.logger.warn(`budget ${what} failed`, { reservation: id, err });
      return false;
    }
  }

  /** A reservation, renewed until settled, whose settle/release never throw: an unsettled hold expires once its replica stops renewing it. */
  private reservation(id: string, keys: string[]): Reservation {
    let done = false;
    this.renewals.track(id, keys);
    const finish = async (usd: number, what: string) => {
      if (done) return;
      done = true;
      this.renewals.forget(id);
      await this.settleHold(id, keys, toNanos(Math.max(0, usd)), what);
    };
    return { settle: (usd) => finish(usd, 'settle'), release: () => finish(0, 'release') };
  }

  private async unavailableOnError<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      this.o.metrics.budgetStoreErrors.inc({ operation: 'reserve' });
      this.o.metrics.budgetReservations.inc({ result: 'unavailable' });
      this.o.logger.warn('budget check failed closed', { err });
      throw new ServiceUnavailableError({ reason: 'budget_store_unavailable' }, 1);
    }
  }
}
