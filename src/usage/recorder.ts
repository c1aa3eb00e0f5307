/**
 * Picks the usage outbox for the deployment: the Redis Stream outbox when the Kv is Redis
 * (shared, durable, every replica drains it); the in-process queue when embedded.
 * @module
 */
import type { Config } from '../config';
import type { Kv } from '../kv/kv';
import type { Database } from '../store/db';
import { RedisKv } from '../kv/redis';
import { MemoryOutbox } from './memory-outbox';
import type { OutboxDeps } from './outbox';
import { StreamOutbox } from './stream-outbox';
import type { UsageRecorder } from './types';

/**
 * The largest batch written to embedded PGlite. It runs inside this process, so an insert holds
 * the event loop for its whole duration and every request arriving meanwhile waits for it.
 * Postgres, across the network, takes `usage.batchSize` as configured.
 */
export const PGLITE_MAX_BATCH = 50;

/**
 * Build the usage recorder for `kv`'s kind with the `usage.*` settings.
 * @example createUsageRecorder(config, kv, { db, metrics, logger })
 */
export function createUsageRecorder(config: Config, kv: Kv, deps: OutboxDeps): UsageRecorder {
  const embedded = (deps.db as Partial<Database>).kind === 'pglite';
  const batchSize = embedded ? Math.min(config.usage.batchSize, PGLITE_MAX_BATCH) : config.usage.batchSize;
  const options = { ...config.usage, batchSize, flushTimeoutMs: Math.max(1000, config.server.shutdownTimeoutMs) };
  if (kv instanceof RedisKv) return new StreamOutbox(kv.connection, kv.prefix, deps, options);
  return new MemoryOutbox(deps, options);
}
