/**
 * The embeddings cache store on Redis: binary values with a PX lifetime under the gateway's key
 * prefix, one MGET per lookup (a batch's entries in one reply: about half the client CPU of a GET
 * per input) and a SET per entry. On a Cluster, whose MGET needs its keys in one slot, each key
 * is read with its own GET (auto-pipelined per node). On the Redis that holds budgets the gateway
 * bounds the cache's bytes itself ({@link RedisByteBound}); on a Redis of its own
 * (`embeddingsCache.redisUrl`) that Redis's `maxmemory` and eviction policy do (docs/embeddings-cache.md).
 * @module
 */
import { Cluster } from 'ioredis';
import type { RedisClient } from '../../kv/redis-topology';
import { ENTRY_OVERHEAD_BYTES, type RedisByteBound } from './redis-byte-bound';
import type { CacheStore, StoreEntry } from './store';

/** Redis-backed {@link CacheStore}. */
export class RedisCacheStore implements CacheStore {
  readonly kind = 'redis' as const;
  readonly inProcess = false;

  /**
   * @param bound - the byte bound on a Redis shared with budgets; none on the cache's own Redis
   * @param owned - the client is the cache's own (closed with the store), not the gateway's
   */
  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
    private readonly bound: RedisByteBound | null = null,
    private readonly owned = false,
  ) {}

  async reserve(entries: readonly StoreEntry[]): Promise<boolean> {
    if (!this.bound) return true;
    let bytes = 0;
    for (const e of entries) bytes += this.prefix.length + e.key.length + e.value.length + ENTRY_OVERHEAD_BYTES;
    return this.bound.reserve(bytes);
  }

  close(): Promise<void> {
    if (this.owned) this.client.disconnect();
    return Promise.resolve();
  }

  getMany(keys: readonly string[]): Promise<Array<Buffer | null>> {
    const { client } = this;
    if (client instanceof Cluster) return Promise.all(keys.map((k) => client.getBuffer(this.prefix + k)));
    return client.mgetBuffer(keys.map((k) => this.prefix + k));
  }

  async set(key: string, value: Buffer, ttlMs: number): Promise<void> {
    await this.client.set(this.prefix + key, value, 'PX', ttlMs);
  }
}
