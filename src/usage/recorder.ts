/**
 * Picks the usage outbox for the deployment: the Redis Stream outbox when the Kv is Redis
 * (shared, durable, every replica drains it), with its consumer on the writer thread when the
 * database is Postgres and `usage.writer` is `thread` (opt-in: a second V8 isolate, ~25 MB); the
 * in-process queue when embedded.
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
import { ThreadedStreamOutbox } from './writer-thread';

/**
 * The largest batch written to embedded PGlite. It runs inside this process, so an insert holds
 * the event loop for its whole duration (about 10 ms for 200 rows, 2.7 ms for 50 on the
 * benchmark machine) and every request arriving meanwhile waits for it. Postgres, across the
 * network, takes `usage.batchSize` as configured.
 */
export const PGLITE_MAX_BATCH = 50;

/**
 * Build the usage recorder for `kv`'s kind with the `usage.*` settings. `writerPreload` is a
 * module the writer thread loads first (the test suite's TypeScript loader).
 * @example createUsageRecorder(config, kv, { db, metrics, logger })
 */
export function createUsageRecorder(config: Config, kv: Kv, deps: OutboxDeps, writerPreload?: string): UsageRecorder {
  const db = deps.db as Partial<Database>;
  const embedded = db.kind === 'pglite';
  const batchSize = embedded ? Math.min(config.usage.batchSize, PGLITE_MAX_BATCH) : config.usage.batchSize;
  const { writer: _writer, ...usage } = config.usage;
  const options = { ...usage, batchSize, flushTimeoutMs: Math.max(1000, config.server.shutdownTimeoutMs) };
  if (!(kv instanceof RedisKv)) return new MemoryOutbox(deps, options);
  // The thread opens its own pool, so it needs a Postgres it can connect to (not PGlite).
  const postgres = db.connection;
  if (config.usage.writer !== 'thread' || !postgres) return new StreamOutbox(kv.client, kv.prefix, deps, options);
  const data = { redis: kv.options, postgres, logLevel: config.log.level };
  return new ThreadedStreamOutbox(kv.client, kv.prefix, deps, options, { data, preload: writerPreload });
}
