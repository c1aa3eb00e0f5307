/**
 * The dependencies an app instance runs on. `openDependencies` opens real resources from the
 * config (used by `main.ts`); `assembleDeps` wires services over resources the caller already
 * holds (used by tests, which bring their own database schema and Redis prefix). Either builds
 * them once and returns them frozen: a part a test (or the benchmark) needs to be another one is
 * given when the deps are built ({@link AssembleOptions}), never put into a live app.
 * @module
 */
import type { Config } from './config';
import type { Database } from './store/db';
import type { Kv } from './kv/kv';
import { createLogger, type Logger } from './observability/logger';
import { Metrics } from './observability/metrics';
import { ConnectionErrorLog } from './observability/connection-errors';
import { errorFields } from './observability/error-fields';
import { KeyCache } from './auth/key-cache';
import { KeyService } from './keys/service';
import { FileService } from './files/service';
import { PostgresChunkStorage } from './files/pg-storage';
import { UploadSpool } from './files/spool';
import type { ApiKeyRecord, KeyUsage } from './keys/types';
import { openPostgres } from './store/postgres';
import { migrate } from './store/migrate';
import { MemoryKv } from './kv/memory';
import { RedisKv } from './kv/redis';
import { createRedisClient, topologyFromConfig } from './kv/redis-topology';
import type { SpendGuard } from './budgets/types';
import { BudgetGuard } from './budgets/guard';
import { keyUsageReader } from './budgets/usage-reader';
import { listBudgets, type BudgetRecord } from './budgets/repository';
import { CoherentCache } from './kv/coherent-cache';
import { RateLimitStores } from './http/rate-limit';
import type { UsageRecorder } from './usage/types';
import { createUsageRecorder } from './usage/recorder';
import { loadCatalog } from './catalog/load';
import { warnUnusableModels } from './catalog/usable';
import { ADAPTER_NAMES } from './providers/adapter-names';
import { RoutingState } from './routing/state';
import { AttemptRunner } from './inference/attempt-runner';
import { EmbeddingsService } from './embeddings/service';
import { ChatService } from './chat/service';
import { closeRankings, createRankings, type Rankings } from './datasets';
import { AnalyticsService } from './analytics/service';
import { ClassifierService } from './classifiers/service';
import { startMaintenance } from './analytics/maintenance';
import { EmbeddingsCache } from './embeddings/cache/cache';
import { CacheSettings } from './embeddings/cache/settings';
import { MemoryCacheStore } from './embeddings/cache/memory-store';
import { RedisCacheStore } from './embeddings/cache/redis-store';
import { RedisByteBound } from './embeddings/cache/redis-byte-bound';
import type { CacheStore } from './embeddings/cache/store';
import { DashboardSessions } from './dashboard/sessions';
import { startTracing, type Tracing } from './observability/tracing';

/** Everything `createApp` needs; built once and frozen (see {@link assembleDeps}). */
export interface AppDeps {
  readonly config: Config;
  readonly db: Database;
  readonly kv: Kv;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly keyCache: KeyCache;
  /** Each workspace's budgets, replica-coherent (invalidated by budget changes). */
  readonly budgetCache: CoherentCache<BudgetRecord[]>;
  readonly keys: KeyService;
  /** Uploaded files; content in Postgres chunks. */
  readonly files: FileService;
  /** Spend figures of a key, summed from the usage table. */
  readonly usage: (key: ApiKeyRecord) => Promise<KeyUsage>;
  /** Reserves and settles spend against budgets and key limits (embeddings path). */
  readonly spend: SpendGuard;
  /** Durable usage recording (generations). */
  readonly recorder: UsageRecorder;
  /** Milliseconds since the epoch; injectable for expiry and period tests. */
  readonly clock: () => number;
  /** Uniform draws in [0, 1) for the default provider load balancing; tests fix it. */
  readonly random: () => number;
  /** Flipped by graceful shutdown so `/readyz` turns the replica out of rotation (the one mutable part). */
  readonly state: { draining: boolean };
  /** The routing state of every inference operation: catalog, circuits, endpoint stats, upstream pool. */
  readonly routing: RoutingState;
  /** POST /embeddings: the plan, the cache and the answer, over the shared routing state and attempt runner. */
  readonly embeddings: EmbeddingsService;
  /** POST /chat/completions: the plan, the stream writing and the answer, over the same routing state and runner. */
  readonly chat: ChatService;
  /** Makes each rate limiter's store (Redis when configured, else in-process). */
  readonly rateLimitStore: RateLimitStores;
  /** The rankings dataset: service, rollup and its schedule, input sampler, route limits. */
  readonly rankings: Readonly<Rankings>;
  /** Analytics queries over the usage records. */
  readonly analytics: AnalyticsService;
  /** Workspace classifiers: CRUD, and tagging of answered requests off the request path. */
  readonly classifiers: ClassifierService;
  /** Stops the analytics maintenance job (rollup refresh, retention) when the process started one. */
  readonly stopMaintenance?: () => Promise<void>;
  /** The per-input embeddings cache (Redis when configured, else a byte-bounded in-process LRU) and each workspace's switch. */
  readonly embeddingsCache: EmbeddingsCache;
  /** Dashboard sign-in sessions; null when the dashboard is off (then no cookie is ever read). */
  readonly dashboard: DashboardSessions | null;
  /** OpenTelemetry tracing; null when off (`config.tracing.endpoint` unset), and then no span is ever made. */
  readonly tracing: Tracing | null;
}

/** The deps before the inference operations are added. */
type BaseDeps = Omit<AppDeps, 'routing' | 'embeddings' | 'rankings' | 'chat'>;

/**
 * Add the inference operations to the other deps, frozen, in a new object: one routing state
 * (catalog, circuits, endpoint stats, upstream pool) and one attempt runner, handed to embeddings
 * and chat.
 */
function withInference(base: Readonly<BaseDeps>, opts: AssembleOptions): AppDeps {
  const catalog = loadCatalog(base.config, ADAPTER_NAMES);
  warnUnusableModels(catalog, base.logger);
  const routing = new RoutingState(base, catalog);
  const runner = new AttemptRunner(base, routing);
  const built = createRankings({ ...base, catalog, preload: opts.workerPreload });
  const rankings = Object.freeze(opts.wrap?.rankings?.(built) ?? built);
  const observers = { rankings, classifiers: base.classifiers };
  const embeddings = new EmbeddingsService(base, routing, runner, observers);
  const chat = new ChatService(base, routing, runner, observers);
  return Object.freeze({ ...base, routing, embeddings, chat, rankings });
}

/**
 * Start the replica-coherent caches' invalidation subscriptions, waiting until Redis has confirmed
 * them, so a change made anywhere after boot reaches this replica. Redis unreachable at boot does
 * not stop the gateway: the subscriptions take effect once it is back (logged here), and each
 * cache's TTL bounds staleness meanwhile.
 */
async function startCaches(logger: Logger, caches: ReadonlyArray<{ start(): Promise<void> }>): Promise<void> {
  const started = await Promise.allSettled(caches.map((c) => c.start()));
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed)
    logger.warn(
      'cache invalidations are not subscribed yet; they take effect once Redis is reachable',
      errorFields(failed.reason),
    );
}

/**
 * Where embeddings cache entries live, so that a full cache can never fail a budgeted request: on
 * a Redis of its own when `embeddingsCache.redisUrl` is set (its `maxmemory` and any eviction
 * policy bound it; a full one only fails cache writes), else on the gateway's Redis within a byte
 * bound the gateway keeps (that Redis runs `noeviction` for budgets), else in-process.
 */
function embeddingsCacheStore(config: Config, kv: Kv, metrics: Metrics, clock: () => number): CacheStore {
  const { redisUrl, maxBytes, ttlMs } = config.embeddingsCache;
  if (redisUrl) {
    const client = createRedisClient({ url: redisUrl }, { commandTimeoutMs: config.redis.commandTimeoutMs });
    // Failures reach the cache as failed lookups and writes (counted, logged at most every 10 s).
    client.on('error', () => undefined);
    client.connect().catch(() => undefined);
    return new RedisCacheStore(client, kv.prefix, null, true);
  }
  if (kv instanceof RedisKv)
    return new RedisCacheStore(
      kv.connection,
      kv.prefix,
      new RedisByteBound(kv.connection, kv.prefix, { maxBytes, ttlMs, clock }),
    );
  return new MemoryCacheStore(maxBytes, metrics);
}

/**
 * Build-time replacements of parts of the deps. Each receives the part `assembleDeps` built and
 * returns the one the app runs on, usually a wrapper that delegates to it: a test's recording or
 * failing spend guard or recorder, the benchmark ladder's feature switched off. The part returned
 * is the one every service is handed (the recorder's also backs the spend guard's pending usage).
 */
export interface DepsWrappers {
  spend?: (built: SpendGuard) => SpendGuard;
  recorder?: (built: UsageRecorder) => UsageRecorder;
  embeddingsCache?: (built: EmbeddingsCache) => EmbeddingsCache;
  rankings?: (built: Rankings) => Rankings;
}

/** Optional parts for {@link assembleDeps}. */
export interface AssembleOptions {
  logger?: Logger;
  metrics?: Metrics;
  clock?: () => number;
  random?: () => number;
  /** A module worker threads (the rankings classifier) load before their entry (tests: a TypeScript loader). */
  workerPreload?: string;
  /** Stops the analytics maintenance job the caller started (`openDependencies`); shutdown calls it. */
  stopMaintenance?: () => Promise<void>;
  /** Parts replaced or wrapped at build time ({@link DepsWrappers}). */
  wrap?: DepsWrappers;
}

/** Wire services over open resources and start the key-cache subscription; the deps returned are frozen. */
export async function assembleDeps(config: Config, db: Database, kv: Kv, opts: AssembleOptions = {}): Promise<AppDeps> {
  const wrap = opts.wrap ?? {};
  const logger = opts.logger ?? createLogger(config.log.level, undefined, config.log.flushMs);
  const metrics = opts.metrics ?? new Metrics();
  const clock = opts.clock ?? Date.now;
  const keyCache = new KeyCache(db, kv, metrics, { ttlMs: config.auth.keyCacheTtlMs, max: config.auth.keyCacheMax });
  const budgetCache = new CoherentCache<BudgetRecord[]>(kv, metrics, {
    name: 'budgets',
    ttlMs: config.auth.keyCacheTtlMs,
    max: config.auth.keyCacheMax,
    load: (workspaceId) => listBudgets(db, workspaceId),
  });
  const cacheSettings = new CacheSettings(db, kv, metrics, config.embeddingsCache.enabled, {
    ttlMs: config.auth.keyCacheTtlMs,
    max: config.auth.keyCacheMax,
  });
  await startCaches(logger, [keyCache, budgetCache, cacheSettings]);
  const cacheStore = embeddingsCacheStore(config, kv, metrics, clock);
  const builtRecorder = createUsageRecorder(config, kv, { db, metrics, logger });
  const recorder = wrap.recorder?.(builtRecorder) ?? builtRecorder;
  const dashboard = config.dashboard.enabled
    ? new DashboardSessions(kv, {
        secret: config.dashboard.sessionSecret,
        ttlMs: config.dashboardSessions.ttlMs,
        clock,
      })
    : null;
  const spend = new BudgetGuard({
    db,
    budgetsOf: async (workspaceId) => (await budgetCache.get(workspaceId)) ?? [],
    budgetsNow: (workspaceId) => {
      const budgets = budgetCache.peek(workspaceId);
      return budgets === undefined ? undefined : (budgets ?? []);
    },
    kv,
    metrics,
    logger,
    clock,
    reservationTtlMs: config.budgets.reservationTtlMs,
    lease: { requests: config.budgets.leaseRequests, ms: config.budgets.leaseMs },
    pendingUsage: () => recorder.pending(),
  });
  const embeddingsCache = new EmbeddingsCache(cacheStore, cacheSettings, { config, metrics, logger, clock });
  const base: BaseDeps = {
    config,
    db,
    kv,
    logger,
    metrics,
    keyCache,
    budgetCache,
    keys: new KeyService(db, keyCache, clock),
    files: new FileService(
      db,
      new PostgresChunkStorage(db, config.files.chunkBytes),
      metrics,
      config.files,
      new UploadSpool(config.files.spoolDir, config.files.spoolMaxBytes, (bytes) => metrics.fileSpoolBytes.set(bytes)),
    ),
    usage: keyUsageReader(db, clock),
    recorder,
    spend: wrap.spend?.(spend) ?? spend,
    clock,
    random: opts.random ?? Math.random,
    state: { draining: false },
    analytics: new AnalyticsService(db, { timeoutMs: config.analytics.timeoutMs, clock, metrics }),
    classifiers: new ClassifierService(db, {
      logger,
      metrics,
      random: opts.random ?? Math.random,
      clock,
      preload: opts.workerPreload,
    }),
    rateLimitStore: new RateLimitStores(kv),
    stopMaintenance: opts.stopMaintenance,
    embeddingsCache: wrap.embeddingsCache?.(embeddingsCache) ?? embeddingsCache,
    dashboard,
    tracing: startTracing(config.tracing, { logger, metrics }),
  };
  return withInference(Object.freeze(base), opts);
}

/**
 * The embedded database's module, required on first use: a replica on Postgres never loads
 * PGlite's code. The type import keeps it checked.
 */
function loadPglite(): typeof import('./store/pglite') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./store/pglite') as typeof import('./store/pglite');
}

/**
 * Open the database the config names (Postgres or embedded PGlite) and, by default, migrate it.
 * `connectionErrors` hears the pool's connection errors (Postgres only).
 */
export async function openDatabase(
  config: Config,
  runMigrations = true,
  connectionErrors?: ConnectionErrorLog,
): Promise<Database> {
  const db = config.database.url
    ? await openPostgres(
        { url: config.database.url, poolSize: config.database.poolSize },
        { onConnectionError: connectionErrors?.handler('postgres') },
      )
    : await loadPglite().openPglite({ dataDir: config.database.dataDir });
  try {
    if (runMigrations) await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/**
 * Open Redis when configured (one server by URL, a Cluster, or a Sentinel-managed primary), else
 * the in-process twin. `connectionErrors` hears Redis's connection errors.
 */
export async function openKv(config: Config, connectionErrors?: ConnectionErrorLog): Promise<Kv> {
  const topology = topologyFromConfig(config.redis);
  return topology
    ? RedisKv.connect(
        { ...topology, prefix: config.redis.keyPrefix, commandTimeoutMs: config.redis.commandTimeoutMs },
        { onConnectionError: connectionErrors?.handler('redis') },
      )
    : new MemoryKv(config.redis.keyPrefix);
}

/** Open every resource from config and assemble the dependencies (process entry point). */
export async function openDependencies(config: Config, opts: AssembleOptions = {}): Promise<AppDeps> {
  const logger = opts.logger ?? createLogger(config.log.level, undefined, config.log.flushMs);
  const metrics = opts.metrics ?? new Metrics(true);
  const connectionErrors = new ConnectionErrorLog(logger, metrics);
  const db = await openDatabase(config, true, connectionErrors);
  const kv = await openKv(config, connectionErrors);
  const { maintenanceIntervalMs: intervalMs, retentionDays } = config.analytics;
  // Its first pass is an interval away: nothing runs before the deps are assembled.
  const stopMaintenance = startMaintenance(db, logger, { intervalMs, retentionDays, clock: opts.clock ?? Date.now });
  try {
    return await assembleDeps(config, db, kv, { ...opts, logger, metrics, stopMaintenance });
  } catch (err) {
    await stopMaintenance();
    throw err;
  }
}

/** Close pools and connections; safe to call twice. */
export async function closeDependencies(deps: AppDeps): Promise<void> {
  await Promise.all([deps.embeddings.drain(), deps.chat.drain()]);
  // The last answers' cache writes (each bounded by the store's command timeout).
  await deps.embeddingsCache.settled();
  // The endpoint stats' last counts go to the Kv before it closes.
  await deps.routing.stats.close();
  // These log their own work's failures; one failing to close is unexpected: logged, and shutdown goes on.
  await closeRankings(deps.rankings).catch((err: unknown) =>
    deps.logger.warn('rankings close failed at shutdown', { err }),
  );
  await deps.classifiers
    .close()
    .catch((err: unknown) => deps.logger.warn('classifiers close failed at shutdown', { err }));
  await deps
    .stopMaintenance?.()
    .catch((err: unknown) => deps.logger.warn('analytics maintenance stop failed at shutdown', { err }));
  await deps.spend
    .close?.()
    .catch((err: unknown) => deps.logger.warn('budget guard close failed at shutdown', { err }));
  await deps.recorder.flush().catch((err: unknown) => deps.logger.error('usage flush failed at shutdown', { err }));
  await deps.recorder
    .close()
    .catch((err: unknown) => deps.logger.warn('usage recorder close failed at shutdown', { err }));
  await deps.files.close();
  await Promise.allSettled([deps.kv.close(), deps.db.close(), deps.routing.http.close(), deps.embeddingsCache.close()]);
  // Last, so the spans of the bookkeeping above are exported too. A failed export is already
  // counted and logged by the exporter (observability/trace-export.ts).
  await deps.tracing?.shutdown().catch(() => undefined);
}
