/**
 * The embeddings cache store on Redis: binary values with a PX lifetime under the gateway's key
 * prefix, one MGET per lookup (a batch's entries in one reply: about half the client CPU of a GET
 * per input) and a SET per entry. On a Cluster, whose MGET needs its keys in one slot, each key
 * is read with its own GET (auto-pipelined per node). Redis bounds the memory: see
 * docs/embeddings-cache.md for `maxmemory` and the eviction policy.
 * @module
 */
import { Cluster } from 'ioredis';
import type { RedisClient } from '../../kv/redis-topology';
import type { CacheStore } from './store';

/** Redis-backed {@link CacheStore}. */
export class RedisCacheStore implements CacheStore {
  readonly kind = 'redis' as const;
  readonly inProcess = false;

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {}

  getMany(keys: readonly string[]): Promise<Array<Buffer | null>> {
    const { client } = this;
    if (client instanceof Cluster) return Promise.all(keys.map((k) => client.getBuffer(this.prefix + k)));
    return client.mgetBuffer(keys.map((k) => this.prefix + k));
  }

  async set(key: string, value: Buffer, ttlMs: number): Promise<void> {
    await this.client.set(this.prefix + key, value, 'PX', ttlMs);
  }
}
