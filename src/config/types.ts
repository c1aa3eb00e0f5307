/**
 * The shape of the configuration: what `config/default.yaml`, a `SWITCHYARD_CONFIG` file, the
 * environment and test overrides all fill in, checked by `schemas/config.json`.
 * @module
 */
import type { ProviderEnv } from './env';

/** The validated, frozen configuration. */
export interface Config {
  server: {
    host: string;
    port: number;
    metricsPort: number;
    /** JSON bodies of every route but the inference ones; larger → 413. */
    bodyLimitBytes: number;
    /** JSON bodies of the inference routes (agents' whole conversations); larger → 413. */
    inferenceBodyLimitBytes: number;
    /** The large inference bodies one replica reads at once, together (bytes); more → 503. */
    inflightBodyBytes: number;
    shutdownTimeoutMs: number;
    trustProxy: boolean;
    /** Longest a client may take to send a request's head (Node `headersTimeout`); then 408. */
    headersTimeoutMs: number;
    /** Longest a client may take to send a whole request (Node `requestTimeout`); then 408. */
    requestTimeoutMs: number;
  };
  database: { url: string | null; dataDir: string; poolSize: number };
  /**
   * Redis: one of `url` (standalone), `clusterNodes` (Redis Cluster seed nodes, `host:port`) or
   * `sentinels` + `sentinelName` (Sentinel-managed primary); none → in-process stores.
   * `password` / `tls` apply to cluster nodes and to the Sentinel-managed primary (a standalone
   * URL carries its own); `sentinelPassword` authenticates to the sentinels themselves.
   */
  redis: {
    url: string | null;
    keyPrefix: string;
    commandTimeoutMs: number;
    clusterNodes: string[];
    sentinels: string[];
    sentinelName: string | null;
    password: string | null;
    sentinelPassword: string | null;
    tls: boolean;
  };
  auth: { bootstrapKey: string | null; keyCacheTtlMs: number; keyCacheMax: number };
  rateLimit: { windowMs: number; limit: number; failMode: 'open' | 'closed' };
  log: { level: string; flushMs: number };
  /** Catalog files: embeddings models, chat models, providers (paths relative to the project root, or absolute). */
  catalog: { modelsFile: string; chatModelsFile: string; providersFile: string };
  /** Upstream HTTP: the connection pool of every operation; the per-attempt timeout and overall deadline of embeddings. */
  upstream: { attemptTimeoutMs: number; deadlineMs: number; connectionsPerOrigin: number; keepAliveTimeoutMs: number };
  /** Chat timing (every chat-like operation): a whole answer, or a stream's first content, within `attemptTimeoutMs`; a started stream silent for `streamIdleTimeoutMs` is cut. */
  chat: {
    attemptTimeoutMs: number;
    deadlineMs: number;
    streamIdleTimeoutMs: number;
    keepAliveMs: number;
    /** The largest whole answer read (bytes); a larger one is a failed attempt. */
    maxAnswerBytes: number;
    /** The files one chat request names by `file_id` (read from `/files` and sent inline), together, at most. */
    maxFilePartBytes: number;
    /** The most a stream's upstream may send (bytes), and for how long (ms), before the gateway ends it. */
    streamMaxBytes: number;
    streamMaxMs: number;
    /** How long a session (`session_id`, `x-session-id`) stays on the endpoint that last answered it without requests (ms); 0 = no stickiness. */
    sessionAffinityTtlMs: number;
  };
  /** Circuit breaker per provider endpoint: consecutive failures that open it, and the cooldown before a probe. */
  breaker: { failureThreshold: number; cooldownMs: number };
  /**
   * Per-provider overrides from `<SLUG>_BASE_URL` / `<SLUG>_API_KEY`, keyed by the env form of the slug
   * (upper-cased, non-alphanumerics → `_`, e.g. `DEEPINFRA`): see `providerEnvName`.
   */
  providers: Record<string, ProviderEnv>;
  /**
   * AWS credentials and region from the standard variables (`AWS_ACCESS_KEY_ID`, …), for the
   * providers of `adapter: bedrock` (SigV4); null where unset.
   */
  aws: {
    accessKeyId: string | null;
    secretAccessKey: string | null;
    sessionToken: string | null;
    region: string | null;
  };
  /**
   * Uploaded files: the size limit (larger → 413), the size of the chunks content is stored in, and
   * how uploads share a replica. A body is spooled to disk first, so only a complete upload ever
   * touches the database, and a slow client holds nothing but its own organization's slot.
   */
  files: {
    maxBytes: number;
    chunkBytes: number;
    /** Spooled uploads a replica writes into the database at once (each holds a connection); more wait their turn. */
    maxConcurrentUploads: number;
    /** Uploads one organization has in progress on a replica (receiving or storing); more → 429. */
    maxConcurrentUploadsPerOrg: number;
    /** Directory under which upload bodies are spooled; null → the OS temp directory. */
    spoolDir: string | null;
    /** Bytes all uploads of a replica may hold in the spool at once; more → 503. At least `maxBytes`. */
    spoolMaxBytes: number;
    /** An upload sending nothing for this long is cut with 408 and its slot freed. */
    uploadIdleTimeoutMs: number;
    /** An upload not complete within this is cut with 408, however steadily it sends. */
    uploadDeadlineMs: number;
  };
  /**
   * Usage outbox: events per batch insert, how often pending events are flushed, the bound of the
   * in-process queue (embedded mode; `record` waits when full), how long a Redis Stream entry may sit
   * unacknowledged with a consumer before another replica reclaims it, and the longest retry backoff.
   */
  usage: {
    batchSize: number;
    flushIntervalMs: number;
    maxQueued: number;
    claimIdleMs: number;
    retryMaxMs: number;
    /** With Redis: how long a recorded event waits for others to share its XADD (0 = to the end of the event-loop turn). */
    addLingerMs: number;
    /**
     * Hold a 200 until its usage event is durable (in the Redis Stream, or the embedded queue), so
     * a replica killed right after answering never loses the record of an answer a client has.
     * On (the default): each answer waits for its record, up to `addLingerMs`, so pair it with 0.
     * Off: the answer goes at once, and a crash can lose the records of the answers sent in its
     * last `addLingerMs`.
     */
    answerAfterRecord: boolean;
  };
  /**
   * Spend enforcement: how long an unsettled reservation (a crashed request's) holds budget, and
   * budget leases (see budgets/leases.ts): requests' worth per lease (0 = off), how long one admits,
   * and the completion slice (see budgets/slices.ts): a chat request under a limit holds its prompt
   * and this many completion tokens to start, and one more slice at a time as it streams (0 = off:
   * the whole worst case is held up front).
   */
  budgets: { reservationTtlMs: number; leaseRequests: number; leaseMs: number; sliceTokens: number };
  /** Passthrough of other OpenAI-compatible routes; off while `baseUrl` is null. */
  passthrough: { baseUrl: string | null; apiKey: string | null; timeoutMs: number };
  /**
   * The rankings dataset: whose traffic a key ranks (its organization's, or the installation's
   * as published with the privacy settings below: see docs/rankings.md), the in-process rollup's
   * interval (0 = off) and lookback for late records, the route's limits, and the classifier's
   * sampling.
   */
  rankings: {
    scope: 'organization' | 'installation';
    minOrganizations: number;
    /** Installation scope: a model is named only when no organization has more than this share of its tokens. */
    maxOrgShare: number;
    /** Installation scope: each organization's tokens per model per day counted at most this much. */
    clampTokens: number;
    /** Installation scope: the differential-privacy parameter of each published cell (noise scale clampTokens / epsilon). */
    epsilon: number;
    /** Installation scope: a day (week) is published this long after it ends, so late records are in. */
    publishDelayMs: number;
    rollupIntervalMs: number;
    lookbackDays: number;
    perKeyPerMinute: number;
    perOrgPerDay: number;
    sampleRate: number;
    sampleQueueMax: number;
    sampleMaxPerSecond: number;
  };
  /**
   * Analytics: the query timeout (cancelled in the database, then 408), the analytics routes' own
   * per-key rate limit, raw usage retention in days (0 = keep forever) and how often the in-process
   * maintenance job (rollup refresh, retention) runs (0 = never; e.g. when a CronJob runs it).
   */
  analytics: {
    timeoutMs: number;
    rateLimit: { windowMs: number; limit: number };
    retentionDays: number;
    maintenanceIntervalMs: number;
  };
  /**
   * Embeddings cache (docs/embeddings-cache.md): the default for workspaces that set nothing, whose
   * inputs share entries (`organization` or `workspace`), entry lifetime, the byte bound the
   * gateway keeps it to (the in-process store, or its share of the Redis that holds budgets), a
   * Redis of its own (then that Redis's `maxmemory` bounds it, with any eviction policy), the
   * longest a lookup may wait for the store before it is skipped, and how many entry writes may
   * be pending at once (more are dropped).
   */
  embeddingsCache: {
    enabled: boolean;
    scope: 'organization' | 'workspace';
    ttlMs: number;
    maxBytes: number;
    redisUrl: string | null;
    lookupTimeoutMs: number;
    maxPendingWrites: number;
  };
  /** The admin dashboard (docs/dashboard.md): served or not, and the secret its session cookies are signed with. */
  dashboard: { enabled: boolean; sessionSecret: string | null };
  /** Dashboard sessions: how long a sign-in lasts, and sign-in attempts per client IP per minute. */
  dashboardSessions: { ttlMs: number; signInPerMinute: number };
  /**
   * OpenTelemetry tracing (docs/operations.md), from the standard `OTEL_*` variables: the OTLP/HTTP
   * traces URL (null: tracing off, no SDK loaded), the service name, and the sampler with its argument.
   */
  tracing: { endpoint: string | null; serviceName: string; sampler: TracesSampler; samplerArg: number };
}

/** The `OTEL_TRACES_SAMPLER` values the gateway supports (the specification's built-in samplers). */
export type TracesSampler =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

/** Any part of a value at any depth; lists are given whole. */
type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

/** Deep-partial config used for test overrides, merged like a file layer, above the environment (see `loadConfig`). */
export type ConfigOverrides = DeepPartial<Config>;

/** A partial configuration as one source gives it (a YAML file, the environment), section by section. */
export type Layer = Record<string, Record<string, unknown>>;
