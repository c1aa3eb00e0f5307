/**
 * The per-key rate limit's express-rate-limit store, over the Kv (Redis shared by every replica,
 * or the in-process twin), with hit leases.
 *
 * Counting every request with its own script is one Redis round trip per request for every
 * replica, all on the one shared Redis. So while a key's window has ample room, the hit that finds it also leases a batch of hits (`hits`, e.g. 64) for this
 * replica, which admits the key's next requests in memory. Why this stays exact across replicas:
 * - Leased hits are counted in the shared counter when leased, so other replicas see them.
 * - A lease is granted only while the window has `HEADROOM_LEASES` leases' worth of room left,
 *   so near the limit every hit is counted one by one, as without leases.
 * - A hit that would pass but for hits leased and not yet used is not refused: the script says
 *   so and the store waits for leases to close (each admits for at most `ms`, and returns its
 *   unused hits when it closes), then asks again.
 * - A lease belongs to the window it was taken in: it never admits past that window's reset,
 *   and its unused hits are returned only to that window (RELEASE checks the window's pttl).
 *
 * Renewal: once a lease is three quarters used or three quarters through its time, the store
 * asks for the next one in the background (HIT as a renewal: the same room rule, no hit counted)
 * and switches to it when granted, returning the old one's rest. So steady traffic on a key
 * never waits for a Redis round trip; a request only waits when a lease ran out before its
 * successor arrived, or when the window has too little room to lease.
 *
 * A crash loses nothing but strictness: the unused hits of a live lease stay counted until the
 * window ends (at most one lease per key), so the key may be refused a few requests early.
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientRateLimitInfo, IncrementResponse, Store } from 'express-rate-limit';
import type { Kv } from '../kv/kv';
import { HEADROOM_LEASES, MAX_LEASE_WAITS, leaseCloseWaitMs } from '../kv/lease-policy';
import { HIT, PEEK, RELEASE, RESET, UNCOUNT, type HitReply } from './scripts';

/** How far a window's pttl may drift from the lease's expectation and still be its window. */
const RELEASE_TOLERANCE_MS = 250;
/**
 * Delays before retrying a release that failed (Redis unreachable); then the window's end cleans
 * up. The waits do not keep the process alive: a release is best effort, and a process with
 * nothing else left to do (its Kv closed, a test worker done) should not linger 1.25 s for it.
 * Shutdown ({@link KvRateLimitStore.shutdown}) releases without retries and waits for that itself.
 */
const RELEASE_RETRY_MS: readonly number[] = [250, 1000];

/** Options of {@link KvRateLimitStore}. */
export interface KvRateLimitStoreOptions {
  /** Key prefix inside the Kv, e.g. `rl:api:`. */
  prefix: string;
  windowMs: number;
  limit: number;
  /** Hits per lease (0 = count every hit in the Kv) and how long a lease admits. */
  lease: { hits: number; ms: number };
  /** Told about lease events, for metrics. */
  onLease?: (event: 'granted' | 'waited' | 'release_failed') => void;
}

interface Lease {
  /** The hit count the leasing request was given; leased hits are the next `size`. */
  base: number;
  size: number;
  used: number;
  resetTime: Date;
  /** performance.now() after which it admits nothing more. */
  closesAt: number;
  /** The window's pttl when granted, and when (performance.now()), to recognise the window later. */
  pttlMs: number;
  grantedAt: number;
  /** Whether its successor has been asked for (see {@link RENEW_AT}). */
  renewing: boolean;
  timer: NodeJS.Timeout;
}

/**
 * The pttl `lease`'s window should have at `now` (performance.now()): how a lease recognises its
 * window later, when returning hits (RELEASE checks it within {@link RELEASE_TOLERANCE_MS}).
 */
function pttlNow(lease: Lease, now: number): number {
  return lease.pttlMs - (now - lease.grantedAt);
}

/** Share of a lease (hits used, or time gone) after which its successor is asked for. */
const RENEW_AT = 0.75;

/** express-rate-limit's Store over {@link Kv} scripts, leasing hits while a window has room. */
export class KvRateLimitStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  private readonly leases = new Map<string, Lease>();
  /** Keys with a lease-asking hit in flight (one ask at a time per key), settled once a granted lease is open. */
  private readonly asking = new Map<string, Promise<void>>();
  private readonly releasing = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly kv: Kv,
    private readonly o: KvRateLimitStoreOptions,
  ) {
    if (o.windowMs < 1000 || o.limit < 1 || o.lease.hits < 0 || o.lease.ms < 1) throw new Error('rate-limit store: bad options');
    this.prefix = o.prefix;
  }

  async increment(key: string): Promise<IncrementResponse> {
    const admitted = this.admitLeased(key);
    if (admitted) return admitted;
    // A lease being asked for: wait for it (the round trip this hit would make anyway), then use it.
    const asking = this.asking.get(key);
    if (asking) {
      await asking;
      const after = this.admitLeased(key);
      if (after) return after;
    }
    for (let waits = 0; ; waits++) {
      const reply = await this.hit(key);
      const resetTime = new Date(Date.now() + reply.pttlMs);
      if (reply.kind === 'counted') return { totalHits: reply.total, resetTime };
      if (waits === MAX_LEASE_WAITS) return { totalHits: this.o.limit + 1, resetTime };
      this.o.onLease?.('waited');
      await sleep(leaseCloseWaitMs(this.o.lease.ms));
    }
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const count = await this.kv.run(PEEK, this.keys(key), []);
    return count === null ? undefined : { totalHits: count.total, resetTime: new Date(Date.now() + count.pttlMs) };
  }

  async decrement(key: string): Promise<void> {
    await this.kv.run(UNCOUNT, this.keys(key), []);
  }

  async resetKey(key: string): Promise<void> {
    const lease = this.leases.get(key);
    if (lease) {
      clearTimeout(lease.timer);
      this.leases.delete(key);
    }
    await this.kv.run(RESET, this.keys(key), []);
  }

  /** Close every lease and return their unused hits (shutdown); later hits are counted one by one. */
  async shutdown(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.asking.values()]); // a lease granted meanwhile is closed below
    for (const [key, lease] of this.leases) this.close(key, lease, false);
    await Promise.allSettled([...this.releasing]);
  }

  private keys(key: string): [string, string] {
    const counter = `${this.prefix}{${key}}`;
    return [counter, `${counter}:leased`];
  }

  /**
   * The next hit of `key`'s live lease, if it has one left (counted, as `increment` would count
   * it); closes a lease that is used up or over. Synchronous, so the limiter admits a leased hit
   * without a promise (see `http/rate-limit.ts`). A leased hit is always within the limit: a lease
   * is granted only while the window has room for it.
   */
  admitLeased(key: string): IncrementResponse | undefined {
    const lease = this.leases.get(key);
    if (!lease) return undefined;
    const now = performance.now();
    if (lease.used < lease.size && now < lease.closesAt) {
      lease.used++;
      if (!lease.renewing && (lease.used >= lease.size * RENEW_AT || now >= lease.grantedAt + (lease.closesAt - lease.grantedAt) * RENEW_AT)) {
        lease.renewing = true;
        this.renew(key);
      }
      if (lease.used === lease.size) this.close(key, lease);
      return { totalHits: lease.base + lease.used, resetTime: lease.resetTime };
    }
    this.close(key, lease);
    return undefined;
  }

  /** Count one hit in the Kv, asking for a lease unless one is being asked for; a granted lease is open when this resolves. */
  private hit(key: string): Promise<HitReply> {
    const ask = this.o.lease.hits > 0 && !this.closed && !this.asking.has(key) ? this.o.lease.hits : 0;
    return this.runHit(key, ask, false);
  }

  /** Ask for `key`'s next lease in the background, counting no hit; hits arriving meanwhile without a lease wait for it. */
  private renew(key: string): void {
    if (this.closed || this.asking.has(key)) return;
    this.runHit(key, this.o.lease.hits, true).catch(() => undefined); // a Kv outage shows on the next hit that needs the Kv
  }

  /** Run HIT and open the lease it grants; while it asks for one, `asking` holds it for hits to wait on. */
  private runHit(key: string, ask: number, renewal: boolean): Promise<HitReply> {
    // A renewal runs while the key's lease still admits: the count it answers holds that lease's
    // hits not yet used, which go back when it closes (see open).
    const predecessor = renewal ? this.leases.get(key) : undefined;
    const reply = this.kv.run(HIT, this.keys(key), [this.o.windowMs, this.o.limit, ask, HEADROOM_LEASES, renewal ? 1 : 0]).then((r) => {
      if (r.kind === 'counted' && r.granted > 0) this.open(key, r, new Date(Date.now() + r.pttlMs), predecessor);
      return r;
    });
    if (ask > 0) {
      const settled = reply.then(
        () => undefined,
        () => undefined,
      );
      this.asking.set(key, settled);
      void settled.then(() => this.asking.delete(key));
    }
    return reply;
  }

  /**
   * Open the lease `reply` granted, closing the key's current one. After a renewal, the new
   * lease's totals start from the count minus what `predecessor` (the lease the renewal ran
   * beside, now closed) did not use, so the totals handed out stay the exact running count on
   * one replica instead of jumping by those hits and falling back once they are returned (what
   * `RateLimit-Remaining` shows). Only within the same window: a new window's count never held them.
   */
  private open(key: string, reply: Extract<HitReply, { kind: 'counted' }>, resetTime: Date, predecessor?: Lease): void {
    const previous = this.leases.get(key);
    if (previous) this.close(key, previous);
    const now = performance.now();
    const unreturned = predecessor && Math.abs(pttlNow(predecessor, now) - reply.pttlMs) <= RELEASE_TOLERANCE_MS
      ? predecessor.size - predecessor.used
      : 0;
    // Never past the window: a lease admits only into the window it was counted in.
    const admitMs = Math.max(0, Math.min(this.o.lease.ms, reply.pttlMs - 5));
    const lease: Lease = {
      base: reply.total - unreturned,
      size: reply.granted,
      used: 0,
      resetTime,
      closesAt: now + admitMs,
      pttlMs: reply.pttlMs,
      grantedAt: now,
      renewing: false,
      timer: setTimeout(() => this.close(key, lease), admitMs),
    };
    lease.timer.unref();
    this.leases.set(key, lease);
    this.o.onLease?.('granted');
  }

  /** Stop admitting on `lease` and return what it did not use. */
  private close(key: string, lease: Lease, retry = true): void {
    clearTimeout(lease.timer);
    if (this.leases.get(key) === lease) this.leases.delete(key);
    const done = this.release(key, lease, retry ? RELEASE_RETRY_MS : []).finally(() => this.releasing.delete(done));
    this.releasing.add(done);
  }

  private async release(key: string, lease: Lease, retries: readonly number[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const expected = pttlNow(lease, performance.now());
      try {
        await this.kv.run(RELEASE, this.keys(key), [lease.size - lease.used, lease.size, Math.round(expected), RELEASE_TOLERANCE_MS]);
        return;
      } catch {
        const delay = retries[attempt];
        if (delay === undefined || expected - delay <= 0) {
          this.o.onLease?.('release_failed');
          return;
        }
        await sleep(delay, undefined, { ref: false });
      }
    }
  }
}
