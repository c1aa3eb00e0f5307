/**
 * An in-process read-through cache that stays coherent across replicas: a change anywhere is
 * announced on a Kv pub/sub channel and every replica drops the entry within milliseconds; a
 * short TTL is the safety net for a lost message, and a subscriber reconnect flushes everything.
 * Hot-path lookups (API keys, workspace budgets) then cost a map read instead of a query.
 * Misses for one id share a single load; "nothing there" is cached too.
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
}

const MISSING = Symbol('missing');

/** A replica-coherent cache of values by string id. */
export class CoherentCache<V> {
  private readonly cache: LRUCache<string, { v: V | typeof MISSING }>;
  private readonly channel: string;

  constructor(
    private readonly kv: Kv,
    private readonly metrics: Metrics,
    private readonly o: CoherentCacheOptions<V>,
  ) {
    this.channel = `cache:${o.name}:invalidate`;
    this.cache = new LRUCache<string, { v: V | typeof MISSING }>({
      max: o.max,
      ttl: Math.max(1, o.ttlMs),
      fetchMethod: async (id) => ({ v: (await o.load(id)) ?? MISSING }),
    });
  }

  /** Subscribe to invalidations; call once at boot. */
  async start(): Promise<void> {
    await this.kv.subscribe(this.channel, (id) => {
      this.metrics.cacheInvalidations.inc({ cache: this.o.name, source: 'message' });
      if (id === '*') this.cache.clear();
      else this.cache.delete(id);
    });
    this.kv.onMessagesMissed(() => {
      this.metrics.cacheInvalidations.inc({ cache: this.o.name, source: 'reconnect' });
      this.cache.clear();
    });
  }

  /** The current value, or null when there is none. */
  async get(id: string): Promise<V | null> {
    this.metrics.cacheLookups.inc({ cache: this.o.name, result: this.cache.has(id) ? 'hit' : 'miss' });
    let entry: { v: V | typeof MISSING } | undefined;
    try {
      entry = await this.cache.fetch(id);
    } catch {
      // The fetch was aborted by an invalidation racing it: read through, uncached.
      entry = { v: (await this.o.load(id)) ?? MISSING };
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
