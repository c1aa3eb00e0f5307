/**
 * Picks the usage outbox for the deployment: the Redis Stream outbox when the Kv is Redis
 * (shared, durable, every replica drains it), the in-process queue when embedded.
 * @module
 */
import type { Config } from '../config';
import type { Kv } from '../kv/kv';
import { RedisKv } from '../kv/redis';
import { MemoryOutbox } from './memory-outbox';
import type { OutboxDeps } from './outbox';
import { StreamOutbox } from './stream-outbox';
import type { UsageRecorder } from './types';

/**
 * Build the usage recorder for `kv`'s kind with the `usage.*` settings.
 * @example createUsageRecorder(config, kv, { db, metrics, logger })
 */
export function createUsageRecorder(config: Config, kv: Kv, deps: OutboxDeps): UsageRecorder {
  const options = { ...config.usage, flushTimeoutMs: Math.max(1000, config.server.shutdownTimeoutMs) };
  return kv instanceof RedisKv ? new StreamOutbox(kv.client, kv.prefix, deps, options) : new MemoryOutbox(deps, options);
}
