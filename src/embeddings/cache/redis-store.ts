/**
 * The embeddings cache store on Redis: binary values with a PX lifetime under the gateway's key
 * prefix, one MGET per lookup (a batch's entries in one reply: about half the client CPU of a GET
 * per input) and a SET per entry. The gateway's Redis client is a standalone/Sentinel one; on a
 * Cluster, MGET would need its keys in one slot. Redis bounds the memory: see
 * docs/embeddings-cache.md for `maxmemory` and the eviction policy.
 * @module
 */
import type { Redis } from 'ioredis';
import type { CacheStore } from './store';

/** Redis-backed {@link CacheStore}. */
export class RedisCacheStore implements CacheStore {
  readonly kind = 'redis' as const;
  readonly inProcess = false;

  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
  ) {}

  getMany(keys: readonly string[]): Promise<Array<Buffer | null>> {
    return this.client.mgetBuffer(keys.map((k) => this.prefix + k));
  }

  async set(key: string, value: Buffer, ttlMs: number): Promise<void> {
    await this.client.set(this.prefix + key, value, 'PX', ttlMs);
  }
}
