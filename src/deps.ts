/**
 * The dependencies an app instance runs on. `openDependencies` opens real resources from the
 * config (used by `main.ts`); `assembleDeps` wires services over resources the caller already
 * holds (used by tests, which bring their own database schema and Redis prefix).
 * @module
 */
import type { Config } from './config';
import type { Database } from './store/db';
import type { Kv } from './kv/kv';
import { createLogger, type Logger } from './observability/logger';
import { Metrics } from './observability/metrics';
import { KeyCache } from './auth/key-cache';
import { KeyService } from './keys/service';
import { NO_USAGE, type ApiKeyRecord, type KeyUsage } from './keys/types';
import { openPostgres } from './store/postgres';
import { openPglite } from './store/pglite';
import { migrate } from './store/migrate';
import { MemoryKv } from './kv/memory';
import { RedisKv } from './kv/redis';
import { UNLIMITED, type SpendGuard } from './budgets/types';
import type { UsageRecorder } from './usage/types';
import { DirectUsageRecorder } from './usage/direct-recorder';

/** Everything `createApp` needs. */
export interface AppDeps {
  config: Config;
  db: Database;
  kv: Kv;
  logger: Logger;
  metrics: Metrics;
  keyCache: KeyCache;
  keys: KeyService;
  /** Spend figures of a key (zeros until usage recording exists). */
  usage: (key: ApiKeyRecord) => Promise<KeyUsage>;
  /** Reserves and settles spend against budgets and key limits (embeddings path). */
  spend: SpendGuard;
  /** Durable usage recording (generations). */
  recorder: UsageRecorder;
  /** Milliseconds since the epoch; injectable for expiry and period tests. */
  clock: () => number;
  /** Flipped by graceful shutdown so `/readyz` turns the replica out of rotation. */
  state: { draining: boolean };
}

/** Optional parts for {@link assembleDeps}. */
export interface AssembleOptions {
  logger?: Logger;
  metrics?: Metrics;
  clock?: () => number;
}

/** Wire services over open resources and start the key-cache subscription. */
export async function assembleDeps(config: Config, db: Database, kv: Kv, opts: AssembleOptions = {}): Promise<AppDeps> {
  const logger = opts.logger ?? createLogger(config.log.level);
  const metrics = opts.metrics ?? new Metrics();
  const clock = opts.clock ?? Date.now;
  const keyCache = new KeyCache(db, kv, metrics, { ttlMs: config.auth.keyCacheTtlMs, max: config.auth.keyCacheMax });
  await keyCache.start();
  return {
    config,
    db,
    kv,
    logger,
    metrics,
    keyCache,
    keys: new KeyService(db, keyCache, clock),
    usage: async () => NO_USAGE,
    spend: UNLIMITED,
    recorder: new DirectUsageRecorder(db),
    clock,
    state: { draining: false },
  };
}

/** Open the database the config names (Postgres or embedded PGlite) and migrate it. */
export async function openDatabase(config: Config): Promise<Database> {
  const db = config.database.url
    ? await openPostgres({ url: config.database.url, poolSize: config.database.poolSize })
    : await openPglite({ dataDir: config.database.dataDir });
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/** Open Redis when configured, else the in-process twin. */
export async function openKv(config: Config): Promise<Kv> {
  return config.redis.url
    ? RedisKv.connect({ url: config.redis.url, prefix: config.redis.keyPrefix, commandTimeoutMs: config.redis.commandTimeoutMs })
    : new MemoryKv(config.redis.keyPrefix);
}

/** Open every resource from config and assemble the dependencies (process entry point). */
export async function openDependencies(config: Config, opts: AssembleOptions = {}): Promise<AppDeps> {
  const db = await openDatabase(config);
  const kv = await openKv(config);
  return assembleDeps(config, db, kv, { metrics: new Metrics(true), ...opts });
}

/** Close pools and connections; safe to call twice. */
export async function closeDependencies(deps: AppDeps): Promise<void> {
  await deps.recorder.flush().catch((err: unknown) => deps.logger.error('usage flush failed at shutdown', { err }));
  await deps.recorder.close().catch(() => undefined);
  await Promise.allSettled([deps.kv.close(), deps.db.close()]);
}
