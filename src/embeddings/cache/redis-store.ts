/**
 * The embeddings cache store on Redis: plain GET/SET of binary values with a PX lifetime, under the
 * gateway's key prefix. The commands of one lookup share a socket write (the client's
 * auto-pipelining) and work on Redis Cluster as well (no multi-key command). Redis bounds the
 * memory: see docs/embeddings-cache.md for `maxmemory` and the eviction policy.
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
    return Promise.all(keys.map((k) => this.client.getBuffer(this.prefix + k)));
  }

  async set(key: string, value: Buffer, ttlMs: number): Promise<void> {
    await this.client.set(this.prefix + key, value, 'PX', ttlMs);
  }
}
