/**
 * Where embeddings cache entries live: Redis when the gateway has one (shared by every replica),
 * else a byte-bounded in-process LRU. Both hold opaque entry bytes under string keys, with a
 * lifetime; neither interprets them (see `entry.ts`).
 * @module
 */

/** One entry to store. */
export interface StoreEntry {
  key: string;
  value: Buffer;
}

/** The store behind the embeddings cache. */
export interface CacheStore {
  readonly kind: 'memory' | 'redis';
  /** Whether entries read back are the very bytes written in this process (no checksum needed on read). */
  readonly inProcess: boolean;
  /** The entry under each key, in order; null where there is none. Rejects when the store fails. */
  getMany(keys: readonly string[]): Promise<Array<Buffer | null>>;
  /** Store `value` under `key` for `ttlMs`, replacing what was there. */
  set(key: string, value: Buffer, ttlMs: number): Promise<void>;
  /**
   * Whether `entries` may be stored now, counting them against the store's bound when they may
   * (a store that bounds itself, like the in-process LRU, always says yes). Rejects when the store fails.
   */
  reserve?(entries: readonly StoreEntry[]): Promise<boolean>;
  /** Release what the store holds open (its own connection); the gateway's shared ones are left alone. */
  close?(): Promise<void>;
}
