/**
 * The embeddings cache's byte bound on a Redis it shares with budgets and rate limits. That Redis
 * runs with `maxmemory-policy noeviction` (a budget key must never be evicted), so a cache left to
 * fill it would make Redis refuse every write, budgets' included, and budgeted requests would get
 * 503. Instead the gateway counts what the cache writes, in time buckets shared by every replica,
 * and stops storing new entries once `embeddingsCache.maxBytes` were written within one entry
 * lifetime; entries are served as before, and writing resumes as old buckets expire with their
 * entries. The count is an upper bound of the cache's memory (overwrites and evicted entries stay
 * counted until their bucket expires), never an underestimate.
 * @module
 */
import { evalScript } from '../../kv/redis';
import type { RedisClient } from '../../kv/redis-topology';

/**
 * Sum the buckets (KEYS, the current one first); when ARGV[1] more bytes fit under ARGV[2], add
 * them to the current bucket, which lives ARGV[3] ms (until its last entry has expired): 1, else 0.
 */
const RESERVE = `
local total = 0
for i = 1, #KEYS do
  total = total + (tonumber(redis.call('GET', KEYS[i])) or 0)
end
local bytes = tonumber(ARGV[1])
if total + bytes > tonumber(ARGV[2]) then return 0 end
redis.call('INCRBY', KEYS[1], bytes)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** Buckets per entry lifetime: the count overstates the cache by at most one bucket's writes. */
const BUCKETS_PER_TTL = 8;

/**
 * What Redis holds per entry besides its key and value bytes (its dictionary entry, object
 * headers and expiry record), so that many small entries are not undercounted.
 */
export const ENTRY_OVERHEAD_BYTES = 96;

/** Shared count of the cache's bytes on one Redis, with the bound it enforces. */
export class RedisByteBound {
  private readonly bucketMs: number;

  constructor(
    private readonly client: RedisClient,
    /** The gateway's key prefix; the bucket keys share one hash slot (`{ec}`) for Redis Cluster. */
    private readonly prefix: string,
    private readonly o: { maxBytes: number; ttlMs: number; clock: () => number },
  ) {
    this.bucketMs = Math.ceil(o.ttlMs / BUCKETS_PER_TTL);
  }

  /**
   * Count `bytes` more against the bound: true when they fit (the caller stores them), false when
   * the cache is full. Rejects when Redis fails (the caller then stores nothing either).
   */
  async reserve(bytes: number): Promise<boolean> {
    const now = this.o.clock();
    const current = Math.floor(now / this.bucketMs);
    // Every bucket whose entries may still live: from the one holding `now - ttl` to the current one.
    const oldest = Math.floor((now - this.o.ttlMs) / this.bucketMs);
    const keys = Array.from({ length: current - oldest + 1 }, (_, k) => `${this.prefix}ec-bytes:{ec}:${current - k}`);
    const lifetime = (current + 1) * this.bucketMs + this.o.ttlMs - now;
    return (
      (await evalScript(this.client, RESERVE, keys, [String(bytes), String(this.o.maxBytes), String(lifetime)])) === 1
    );
  }
}
