/**
 * In-process cache of API key records in front of the database, so authentication costs a hash
 * and a map lookup on the hot path. Changes propagate to every replica through a pub/sub
 * invalidation message (milliseconds); a short TTL is the safety net should a message be lost,
 * and a subscriber reconnect flushes everything. Unknown hashes are cached too, so a flood of
 * bad keys cannot hammer the database.
 * @module
 */
import { LRUCache } from 'lru-cache';
import type { Database } from '../store/db';
import type { Kv } from '../kv/kv';
import type { Metrics } from '../observability/metrics';
import type { ApiKeyRecord } from '../keys/types';
import { findKeyForAuth } from '../keys/repository';

/** Pub/sub channel carrying the hash of a changed key (or `*` for all). */
export const KEY_INVALIDATION_CHANNEL = 'keys:invalidate';

const MISSING = Symbol('missing');
type Cached = ApiKeyRecord | typeof MISSING;

/** Options for {@link KeyCache}. */
export interface KeyCacheOptions {
  ttlMs: number;
  max: number;
}

/** Cached, replica-coherent key lookup. */
export class KeyCache {
  private readonly cache: LRUCache<string, { v: Cached }>;

  constructor(
    private readonly db: Database,
    private readonly kv: Kv,
    private readonly metrics: Metrics,
    options: KeyCacheOptions,
  ) {
    this.cache = new LRUCache<string, { v: Cached }>({
      max: options.max,
      ttl: Math.max(1, options.ttlMs),
      // Concurrent misses for one hash share a single query.
      fetchMethod: async (hash) => ({ v: (await findKeyForAuth(this.db, hash)) ?? MISSING }),
    });
  }

  /** Subscribe to invalidations; call once at boot. */
  async start(): Promise<void> {
    await this.kv.subscribe(KEY_INVALIDATION_CHANNEL, (hash) => {
      this.metrics.keyCacheInvalidations.inc({ source: 'message' });
      if (hash === '*') this.cache.clear();
      else this.cache.delete(hash);
    });
    this.kv.onMessagesMissed(() => {
      this.metrics.keyCacheInvalidations.inc({ source: 'reconnect' });
      this.cache.clear();
    });
  }

  /** The live key with this hash, or null. */
  async get(hash: string): Promise<ApiKeyRecord | null> {
    const hit = this.cache.has(hash);
    this.metrics.keyCacheLookups.inc({ result: hit ? 'hit' : 'miss' });
    let entry: { v: Cached } | undefined;
    try {
      entry = await this.cache.fetch(hash);
    } catch {
      // The fetch was aborted by an invalidation racing it: read through, uncached.
      entry = { v: (await findKeyForAuth(this.db, hash)) ?? MISSING };
    }
    return !entry || entry.v === MISSING ? null : entry.v;
  }

  /** Drop a key here and on every other replica; call after any change to a key. */
  async invalidate(hash: string): Promise<void> {
    this.cache.delete(hash);
    // The change is committed already; if Redis is down the other replicas' TTL still expires it.
    await this.kv.publish(KEY_INVALIDATION_CHANNEL, hash).catch(() => {
      this.metrics.keyCacheInvalidations.inc({ source: 'publish_failed' });
    });
  }
}
