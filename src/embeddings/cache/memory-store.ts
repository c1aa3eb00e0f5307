/**
 * The embedded (no Redis) embeddings cache store: an LRU bounded in bytes (`embeddingsCache.maxBytes`),
 * least recently used entries evicted first. Its size and evictions are reported as metrics.
 * @module
 */
import { LRUCache } from 'lru-cache';
import type { Metrics } from '../../observability/metrics';
import type { CacheStore } from './store';

/** In-process {@link CacheStore}. */
export class MemoryCacheStore implements CacheStore {
  readonly kind = 'memory' as const;
  readonly inProcess = true;
  private readonly lru: LRUCache<string, Buffer>;

  constructor(
    maxBytes: number,
    private readonly metrics: Metrics,
  ) {
    this.lru = new LRUCache<string, Buffer>({
      maxSize: maxBytes,
      // The key is held too; the entry objects' own overhead is small against a vector.
      sizeCalculation: (value, key) => value.length + key.length,
      ttlAutopurge: false,
      disposeAfter: (_value, _key, reason) => {
        if (reason === 'evict' || reason === 'expire') metrics.embeddingsCacheEvictions.inc({ reason });
        metrics.embeddingsCacheBytes.set(this.lru.calculatedSize);
      },
    });
  }

  getMany(keys: readonly string[]): Promise<Array<Buffer | null>> {
    return Promise.resolve(keys.map((k) => this.lru.get(k) ?? null));
  }

  set(key: string, value: Buffer, ttlMs: number): Promise<void> {
    // In a promise executor, so that an error of the LRU's rejects (the cache counts the write as
    // failed) rather than throws.
    return new Promise((resolve) => {
      this.lru.set(key, value, { ttl: ttlMs });
      this.metrics.embeddingsCacheBytes.set(this.lru.calculatedSize);
      resolve();
    });
  }
}
