/**
 * An in-process read-through cache that stays coherent across replicas: a change anywhere is
 * announced on a Kv pub/sub channel and every replica drops the entry within milliseconds; a
 * short TTL is the safety net for a lost message, and a subscriber reconnect flushes everything.
 * Hot-path lookups (API keys, workspace budgets) then cost a map read instead of a query.
 * Misses for one id share a single load; "nothing there" is cached too.
 *
 * Stale if error: when an expired entry cannot be reloaded because the system of record is
 * down, the last value keeps being served for up to `staleIfErrorMs` past its TTL, so a
 * Postgres outage does not turn into refusing every known API key once the TTL runs out.
 * Invalidations still apply during the outage (a deleted key is dropped, and then fails).
 * @module
 */
import { LRUCache } from 'lru-cache';
import type { Kv } from './kv';
import type { Metrics } from '../observability/metrics';

/** Options for {@link CoherentCache}. */
export interface CoherentCacheOptions<V> {
  /** Metric label and channel suffix, e.g. `keys`. */
  name: string;
  ttlMs: number;
  max: number;
  /** Load the current value from the system of record; null = does not exist. */
  load: (id: string) => Promise<V | null>;
  /** How long past its TTL an entry may be served while reloading it fails; default 15 minutes. */
  staleIfErrorMs?: number;
  /**
   * Milliseconds clock for load times and TTLs, so expiry and the stale allowance can be driven
   * without waiting them out; default the real clock. An injected clock is read at every TTL
   * check (lru-cache otherwise reuses one reading for a millisecond of real time).
   */
  clock?: () => number;
}

/** Default {@link CoherentCacheOptions.staleIfErrorMs}. */
export const STALE_IF_ERROR_MS = 15 * 60_000;

interface Entry<V> {
  v: V | typeof MISSING;
  /** When it was loaded (ms since the epoch). */
  at: number;
}

const MISSING = Symbol('missing');

/** A replica-coherent cache of values by string id. */
export class CoherentCache<V> {
  private readonly cache: LRUCache<string, Entry<V>>;
  private readonly channel: string;
  private readonly staleIfErrorMs: number;
  private readonly now: () => number;

  constructor(
    private readonly kv: Kv,
    private readonly metrics: Metrics,
    private readonly o: CoherentCacheOptions<V>,
  ) {
    this.channel = `cache:${o.name}:invalidate`;
    this.staleIfErrorMs = o.staleIfErrorMs ?? STALE_IF_ERROR_MS;
    this.now = o.clock ?? Date.now;
    const clock = o.clock;
    this.cache = new LRUCache<string, Entry<V>>({
      // Bounded by count through maxSize (each entry weighs 1), not `max`: with `max`, lru-cache
      // allocates its index arrays for every slot at construction, so a generous bound cost its
      // whole memory from boot on instead of growing with the entries actually cached.
      maxSize: Math.max(1, o.max),
      sizeCalculation: () => 1,
      ttl: Math.max(1, o.ttlMs),
      fetchMethod: (id, stale) => this.load(id, stale),
      ...(clock ? { perf: { now: clock }, ttlResolution: 0 } : {}),
    });
  }

  /**
   * Load `id`; if that fails and an expired entry is at hand that is still within the stale
   * allowance, keep that entry for another TTL (its load time unchanged, so the allowance
   * counts from the real load) instead of failing.
   */
  private async load(id: string, stale: Entry<V> | undefined): Promise<Entry<V>> {
    try {
      return { v: (await this.o.load(id)) ?? MISSING, at: this.now() };
    } catch (err) {
      if (!stale || this.now() - stale.at > this.o.ttlMs + this.staleIfErrorMs) throw err;
      this.metrics.cacheLookups.inc({ cache: this.o.name, result: 'stale' });
      return stale;
    }
  }

  /**
   * Subscribe to invalidations; call once at boot. Resolves once they can arrive (the Kv has
   * confirmed the subscription), so a change published afterwards anywhere reaches this cache.
   * Rejects when the Kv could not confirm it in time (Redis unreachable at boot): the
   * subscription then takes effect once Redis is reachable, and the TTL bounds staleness meanwhile.
   */
  async start(): Promise<void> {
    this.kv.onMessagesMissed(() => {
      this.metrics.cacheInvalidations.inc({ cache: this.o.name, source: 'reconnect' });
      this.cache.clear();
    });
    await this.kv.subscribe(this.channel, (id) => {
      this.metrics.cacheInvalidations.inc({ cache: this.o.name, source: 'message' });
      if (id === '*') this.cache.clear();
      else this.cache.delete(id);
    });
  }

  /**
   * The cached value (null: cached as absent) when a fresh entry is at hand, else undefined: then
   * {@link get} loads it. Synchronous, so the hot path's lookups (every request's key and
   * budgets) cost no promise when they hit, which nearly all do.
   */
  peek(id: string): V | null | undefined {
    // An expired entry stays in place: get's reload falls back on it if the load fails (stale if error).
    const entry = this.cache.get(id, { noDeleteOnStaleGet: true });
    if (entry === undefined) return undefined;
    this.metrics.cacheLookups.inc({ cache: this.o.name, result: 'hit' });
    return entry.v === MISSING ? null : entry.v;
  }

  /** The current value, or null when there is none. */
  async get(id: string): Promise<V | null> {
    this.metrics.cacheLookups.inc({ cache: this.o.name, result: this.cache.has(id) ? 'hit' : 'miss' });
    let entry: Entry<V> | undefined;
    try {
      entry = await this.cache.fetch(id);
    } catch {
      // The fetch was aborted by an invalidation racing it: read through, uncached. (A load
      // failure fails again here and reaches the error handler: 503 while the database is down.)
      entry = await this.load(id, undefined);
    }
    return !entry || entry.v === MISSING ? null : entry.v;
  }

  /** Drop `id` here and on every other replica; call after committing a change to it. */
  async invalidate(id: string): Promise<void> {
    this.cache.delete(id);
    // The change is committed already; if Redis is down, the other replicas' TTL expires it.
    await this.kv.publish(this.channel, id).catch(() => {
      this.metrics.cacheInvalidations.inc({ cache: this.o.name, source: 'publish_failed' });
    });
  }
}
