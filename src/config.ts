/**
 * Configuration, read and validated once at boot: `config/default.yaml`, then an optional file
 * named by `SWITCHYARD_CONFIG`, then environment variables, then (tests only) explicit overrides.
 * Every problem is reported in one error so an operator fixes them all in one go. Nothing else
 * in the code reads `process.env`, except the OpenTelemetry SDK for its own transport and tuning
 * variables once tracing is on (see `observability/tracing.ts`).
 * @module
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { createAjv, toIssues } from './validation/ajv';
import { fromRoot } from './paths';

/** The validated, frozen configuration. */
export interface Config {
  server: {
    host: string;
    port: number;
    metricsPort: number;
    bodyLimitBytes: number;
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
  /** Upstream HTTP: per-attempt timeout, overall deadline across fallbacks, connection pool. */
  upstream: { attemptTimeoutMs: number; deadlineMs: number; connectionsPerOrigin: number; keepAliveTimeoutMs: number };
  /** Chat timing: a whole answer, or a stream's first content, within `attemptTimeoutMs`; a started stream silent for `streamIdleTimeoutMs` is cut. */
  chat: { attemptTimeoutMs: number; deadlineMs: number; streamIdleTimeoutMs: number; keepAliveMs: number };
  /** Circuit breaker per provider endpoint: consecutive failures that open it, and the cooldown before a probe. */
  breaker: { failureThreshold: number; cooldownMs: number };
  /**
   * Per-provider overrides from `<SLUG>_BASE_URL` / `<SLUG>_API_KEY`, keyed by the env form of the slug
   * (upper-cased, non-alphanumerics → `_`, e.g. `DEEPINFRA`). See {@link providerEnvName}.
   */
  providers: Record<string, { baseUrl?: string; apiKey?: string }>;
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
   * budget leases (see budgets/leases.ts): requests' worth per lease (0 = off), how long one admits.
   */
  budgets: { reservationTtlMs: number; leaseRequests: number; leaseMs: number };
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
  analytics: { timeoutMs: number; rateLimit: { windowMs: number; limit: number }; retentionDays: number; maintenanceIntervalMs: number };
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
export type TracesSampler = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

/** Any part of a value at any depth; lists are given whole. */
type DeepPartial<T> = T extends readonly unknown[] ? T : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

/** Deep-partial config used for test overrides, merged like a file layer (see {@link loadConfig}). */
export type ConfigOverrides = DeepPartial<Config>;

/**
 * Environment variable → config path: the settings an operator sets (the README's table).
 * Variables marked `secret` also accept `<NAME>_FILE` (a path whose contents are the value), the
 * usual way to mount Kubernetes secrets. Internal tuning (the "advanced" part of
 * `config/default.yaml`) has no variable: it is set in a file named by `SWITCHYARD_CONFIG`.
 */
export const ENV_VARS: ReadonlyArray<{ name: string; path: [keyof Config, string]; secret?: boolean; list?: boolean }> = [
  { name: 'HOST', path: ['server', 'host'] },
  { name: 'PORT', path: ['server', 'port'] },
  { name: 'METRICS_PORT', path: ['server', 'metricsPort'] },
  { name: 'BODY_LIMIT_BYTES', path: ['server', 'bodyLimitBytes'] },
  { name: 'SHUTDOWN_TIMEOUT_MS', path: ['server', 'shutdownTimeoutMs'] },
  { name: 'TRUST_PROXY', path: ['server', 'trustProxy'] },
  { name: 'HEADERS_TIMEOUT_MS', path: ['server', 'headersTimeoutMs'] },
  { name: 'REQUEST_TIMEOUT_MS', path: ['server', 'requestTimeoutMs'] },
  { name: 'DATABASE_URL', path: ['database', 'url'], secret: true },
  { name: 'SWITCHYARD_DATA_DIR', path: ['database', 'dataDir'] },
  { name: 'DATABASE_POOL_SIZE', path: ['database', 'poolSize'] },
  { name: 'REDIS_URL', path: ['redis', 'url'], secret: true },
  { name: 'REDIS_KEY_PREFIX', path: ['redis', 'keyPrefix'] },
  { name: 'REDIS_COMMAND_TIMEOUT_MS', path: ['redis', 'commandTimeoutMs'] },
  { name: 'REDIS_CLUSTER_NODES', path: ['redis', 'clusterNodes'], list: true },
  { name: 'REDIS_SENTINELS', path: ['redis', 'sentinels'], list: true },
  { name: 'REDIS_SENTINEL_NAME', path: ['redis', 'sentinelName'] },
  { name: 'REDIS_PASSWORD', path: ['redis', 'password'], secret: true },
  { name: 'REDIS_SENTINEL_PASSWORD', path: ['redis', 'sentinelPassword'], secret: true },
  { name: 'REDIS_TLS', path: ['redis', 'tls'] },
  { name: 'SWITCHYARD_BOOTSTRAP_KEY', path: ['auth', 'bootstrapKey'], secret: true },
  { name: 'RATE_LIMIT_WINDOW_MS', path: ['rateLimit', 'windowMs'] },
  { name: 'RATE_LIMIT_MAX', path: ['rateLimit', 'limit'] },
  { name: 'RATE_LIMIT_FAIL_MODE', path: ['rateLimit', 'failMode'] },
  { name: 'LOG_LEVEL', path: ['log', 'level'] },
  { name: 'SWITCHYARD_MODELS_FILE', path: ['catalog', 'modelsFile'] },
  { name: 'SWITCHYARD_CHAT_MODELS_FILE', path: ['catalog', 'chatModelsFile'] },
  { name: 'SWITCHYARD_PROVIDERS_FILE', path: ['catalog', 'providersFile'] },
  { name: 'UPSTREAM_ATTEMPT_TIMEOUT_MS', path: ['upstream', 'attemptTimeoutMs'] },
  { name: 'UPSTREAM_DEADLINE_MS', path: ['upstream', 'deadlineMs'] },
  { name: 'FILES_MAX_BYTES', path: ['files', 'maxBytes'] },
  { name: 'FILES_MAX_CONCURRENT_UPLOADS', path: ['files', 'maxConcurrentUploads'] },
  { name: 'FILES_MAX_CONCURRENT_UPLOADS_PER_ORG', path: ['files', 'maxConcurrentUploadsPerOrg'] },
  { name: 'FILES_SPOOL_DIR', path: ['files', 'spoolDir'] },
  { name: 'FILES_SPOOL_MAX_BYTES', path: ['files', 'spoolMaxBytes'] },
  { name: 'FILES_UPLOAD_IDLE_TIMEOUT_MS', path: ['files', 'uploadIdleTimeoutMs'] },
  { name: 'FILES_UPLOAD_DEADLINE_MS', path: ['files', 'uploadDeadlineMs'] },
  { name: 'USAGE_ANSWER_AFTER_RECORD', path: ['usage', 'answerAfterRecord'] },
  { name: 'PASSTHROUGH_BASE_URL', path: ['passthrough', 'baseUrl'] },
  { name: 'PASSTHROUGH_API_KEY', path: ['passthrough', 'apiKey'], secret: true },
  { name: 'PASSTHROUGH_TIMEOUT_MS', path: ['passthrough', 'timeoutMs'] },
  { name: 'RANKINGS_SCOPE', path: ['rankings', 'scope'] },
  { name: 'RANKINGS_MIN_ORGANIZATIONS', path: ['rankings', 'minOrganizations'] },
  { name: 'RANKINGS_MAX_ORG_SHARE', path: ['rankings', 'maxOrgShare'] },
  { name: 'RANKINGS_CLAMP_TOKENS', path: ['rankings', 'clampTokens'] },
  { name: 'RANKINGS_EPSILON', path: ['rankings', 'epsilon'] },
  { name: 'RANKINGS_ROLLUP_INTERVAL_MS', path: ['rankings', 'rollupIntervalMs'] },
  { name: 'RANKINGS_SAMPLE_RATE', path: ['rankings', 'sampleRate'] },
  { name: 'ANALYTICS_TIMEOUT_MS', path: ['analytics', 'timeoutMs'] },
  { name: 'ANALYTICS_RETENTION_DAYS', path: ['analytics', 'retentionDays'] },
  { name: 'ANALYTICS_MAINTENANCE_INTERVAL_MS', path: ['analytics', 'maintenanceIntervalMs'] },
  { name: 'EMBEDDINGS_CACHE_ENABLED', path: ['embeddingsCache', 'enabled'] },
  { name: 'EMBEDDINGS_CACHE_SCOPE', path: ['embeddingsCache', 'scope'] },
  { name: 'EMBEDDINGS_CACHE_TTL_MS', path: ['embeddingsCache', 'ttlMs'] },
  { name: 'EMBEDDINGS_CACHE_MAX_BYTES', path: ['embeddingsCache', 'maxBytes'] },
  { name: 'EMBEDDINGS_CACHE_REDIS_URL', path: ['embeddingsCache', 'redisUrl'], secret: true },
  { name: 'EMBEDDINGS_CACHE_LOOKUP_TIMEOUT_MS', path: ['embeddingsCache', 'lookupTimeoutMs'] },
  { name: 'EMBEDDINGS_CACHE_MAX_PENDING_WRITES', path: ['embeddingsCache', 'maxPendingWrites'] },
  { name: 'DASHBOARD_ENABLED', path: ['dashboard', 'enabled'] },
  { name: 'DASHBOARD_SESSION_SECRET', path: ['dashboard', 'sessionSecret'], secret: true },
  { name: 'OTEL_SERVICE_NAME', path: ['tracing', 'serviceName'] },
  { name: 'OTEL_TRACES_SAMPLER', path: ['tracing', 'sampler'] },
  { name: 'OTEL_TRACES_SAMPLER_ARG', path: ['tracing', 'samplerArg'] },
];

/**
 * The tracing endpoint from OpenTelemetry's variables: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it
 * is, else `OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` appended (as the specification says);
 * `OTEL_SDK_DISABLED=true` turns tracing off whatever else is set. Only OTLP over HTTP is
 * exported, so a gRPC protocol setting is a problem (the endpoint would be a gRPC port).
 */
function otelEnvLayer(env: NodeJS.ProcessEnv, problems: string[]): Layer {
  for (const name of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) {
    const protocol = env[name];
    if (protocol && !protocol.startsWith('http/')) problems.push(`${name}: only OTLP over HTTP (http/json) is supported, not ${protocol}`);
  }
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { tracing: { endpoint: null } };
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (traces) return { tracing: { endpoint: traces } };
  if (base) return { tracing: { endpoint: `${base.replace(/\/+$/, '')}/v1/traces` } };
  return {};
}

/**
 * The environment form of a provider slug, used for `<NAME>_BASE_URL` / `<NAME>_API_KEY`:
 * upper-cased, every non-alphanumeric character replaced by `_` (`google-vertex` → `GOOGLE_VERTEX`).
 */
export function providerEnvName(slug: string): string {
  return slug.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/** The variable that gives a provider its key (`OPENAI_API_KEY`): what an operator is told to set. */
export function providerKeyVariable(slug: string): string {
  return `${providerEnvName(slug)}_API_KEY`;
}

const PROVIDER_ENV = /^([A-Z0-9_]+?)_(BASE_URL|API_KEY)(_FILE)?$/;
const PROVIDER_PATH = /^config\.providers\.([A-Z0-9_]+)\.(baseUrl|apiKey)$/;

/** The `<NAME>_BASE_URL` / `<NAME>_API_KEY` variable a `config.providers.<NAME>.*` problem comes from. */
function providerVarOf(issuePath: string): string | undefined {
  const m = PROVIDER_PATH.exec(issuePath);
  return m ? `${m[1]}_${m[2] === 'baseUrl' ? 'BASE_URL' : 'API_KEY'}` : undefined;
}

/**
 * Generic provider overrides: every `<NAME>_BASE_URL`, `<NAME>_API_KEY` (or `<NAME>_API_KEY_FILE`)
 * in the environment. Which names matter is decided by the catalog (its slugs), not here.
 */
function providerEnvLayer(env: NodeJS.ProcessEnv, problems: string[]): Layer {
  const out: Record<string, { baseUrl?: string; apiKey?: string }> = {};
  for (const [name, raw] of Object.entries(env)) {
    const m = PROVIDER_ENV.exec(name);
    if (!m || raw === undefined || raw === '') continue;
    const [, prefix, kind, file] = m as unknown as [string, string, 'BASE_URL' | 'API_KEY', string | undefined];
    if (file && kind === 'BASE_URL') continue;
    let value = raw;
    if (file) {
      try {
        value = readFileSync(raw, 'utf8').trim();
      } catch {
        problems.push(`${name}: cannot read ${raw}`);
        continue;
      }
    }
    const entry = (out[prefix] ??= {});
    if (kind === 'BASE_URL') entry.baseUrl = value;
    else entry.apiKey = value;
  }
  return Object.keys(out).length > 0 ? { providers: out } : {};
}

/** Thrown at boot when configuration is invalid; lists every problem. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Layer = Record<string, Record<string, unknown>>;

function readYaml(file: string, problems: string[]): Layer {
  try {
    const parsed: unknown = parseYaml(readFileSync(file, 'utf8'));
    if (parsed === null || parsed === undefined) return {};
    if (typeof parsed !== 'object' || Array.isArray(parsed)) {
      problems.push(`${file}: must be a YAML mapping`);
      return {};
    }
    return parsed as Layer;
  } catch (err) {
    problems.push(`${file}: ${(err as Error).message.split('\n')[0]}`);
    return {};
  }
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Lay `over` on `base` at every depth: mappings merge key by key, anything else (a scalar, a list,
 * null) replaces. A later layer that sets one leaf, such as `providers.OPENAI.apiKey` from the
 * environment or `analytics.rateLimit.limit` in a file, keeps its siblings from the layers below.
 */
function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const below = out[key];
    out[key] = isMapping(value) && isMapping(below) ? merge(below, value) : value;
  }
  return out;
}

function envLayer(env: NodeJS.ProcessEnv, problems: string[]): Layer {
  const layer: Layer = {};
  for (const v of ENV_VARS) {
    let value = env[v.name];
    const fileVar = env[`${v.name}_FILE`];
    if (v.secret && fileVar) {
      try {
        value = readFileSync(fileVar, 'utf8').trim();
      } catch {
        problems.push(`${v.name}_FILE: cannot read ${fileVar}`);
        continue;
      }
    }
    if (value === undefined || value === '') continue;
    const [section, key] = v.path;
    // Lists are comma-separated (`REDIS_CLUSTER_NODES=h1:7000,h2:7000`); blanks between commas are ignored.
    const parsed = v.list ? value.split(',').map((item) => item.trim()).filter((item) => item !== '') : value;
    layer[section] = { ...(layer[section] ?? {}), [key]: parsed };
  }
  return layer;
}

const validate = createAjv(true).compile(JSON.parse(readFileSync(fromRoot('schemas', 'config.json'), 'utf8')));

/**
 * Build the configuration. Pure apart from file reads, so tests call it with their own `env`.
 * @param env - usually `process.env`
 * @param overrides - applied last; for tests and embedding
 * @throws ConfigError listing every invalid or missing value
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: ConfigOverrides = {}): Config {
  const problems: string[] = [];
  const layers: Array<Record<string, unknown>> = [
    env.SWITCHYARD_CONFIG ? readYaml(path.resolve(env.SWITCHYARD_CONFIG), problems) : {},
    envLayer(env, problems),
    providerEnvLayer(env, problems),
    otelEnvLayer(env, problems),
    overrides,
  ];
  const layered = layers.reduce(merge, readYaml(fromRoot('config', 'default.yaml'), problems));
  const data = structuredClone(layered);
  if (!validate(data)) {
    const byVar = new Map(ENV_VARS.map((v) => [`config.${v.path.join('.')}`, v.name]));
    byVar.set('config.tracing.endpoint', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT');
    for (const issue of toIssues('config', validate.errors)) {
      const envName = byVar.get(issue.path) ?? providerVarOf(issue.path);
      problems.push(`${issue.path}${envName ? ` (${envName})` : ''} ${issue.message}`);
    }
  }
  problems.push(...crossFieldProblems(data));
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(data as unknown as Config);
}

/**
 * Rules between settings that one schema property cannot express. Checked on the merged data
 * even when other values are invalid, so every problem is still reported together.
 */
function crossFieldProblems(data: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { port, metricsPort } = (data.server ?? {}) as { port?: unknown; metricsPort?: unknown };
  // Port 0 means "any free port" for each listener, so two zeros do not collide.
  if (typeof port === 'number' && port !== 0 && port === metricsPort) {
    problems.push(`config.server.metricsPort (METRICS_PORT) must differ from config.server.port (PORT): both are ${port}`);
  }
  const { headersTimeoutMs, requestTimeoutMs } = (data.server ?? {}) as { headersTimeoutMs?: unknown; requestTimeoutMs?: unknown };
  const { uploadDeadlineMs } = (data.files ?? {}) as { uploadDeadlineMs?: unknown };
  // Node refuses a request timeout below the headers timeout; an upload deadline past the request
  // timeout would let Node cut the connection bare before the upload's own 408.
  if (typeof headersTimeoutMs === 'number' && typeof requestTimeoutMs === 'number' && requestTimeoutMs < headersTimeoutMs) {
    problems.push(`config.server.requestTimeoutMs (REQUEST_TIMEOUT_MS) must be at least config.server.headersTimeoutMs (HEADERS_TIMEOUT_MS): ${requestTimeoutMs} < ${headersTimeoutMs}`);
  }
  if (typeof uploadDeadlineMs === 'number' && typeof requestTimeoutMs === 'number' && uploadDeadlineMs >= requestTimeoutMs) {
    problems.push(`config.files.uploadDeadlineMs (FILES_UPLOAD_DEADLINE_MS) must be below config.server.requestTimeoutMs (REQUEST_TIMEOUT_MS): ${uploadDeadlineMs} >= ${requestTimeoutMs}`);
  }
  const { maxBytes, spoolMaxBytes } = (data.files ?? {}) as { maxBytes?: unknown; spoolMaxBytes?: unknown };
  // Every upload is spooled whole before it is stored: a spool smaller than one file refuses the largest.
  if (typeof maxBytes === 'number' && typeof spoolMaxBytes === 'number' && spoolMaxBytes < maxBytes) {
    problems.push(`config.files.spoolMaxBytes (FILES_SPOOL_MAX_BYTES) must be at least config.files.maxBytes (FILES_MAX_BYTES): ${spoolMaxBytes} < ${maxBytes}`);
  }
  problems.push(...redisTopologyProblems((data.redis ?? {}) as Record<string, unknown>));
  return problems;
}

/** At most one way to reach Redis, and a Sentinel setup names its primary. */
function redisTopologyProblems(redis: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const listed = (value: unknown) => Array.isArray(value) && value.length > 0;
  const modes = [
    typeof redis.url === 'string' && 'config.redis.url (REDIS_URL)',
    listed(redis.clusterNodes) && 'config.redis.clusterNodes (REDIS_CLUSTER_NODES)',
    listed(redis.sentinels) && 'config.redis.sentinels (REDIS_SENTINELS)',
  ].filter((m): m is string => typeof m === 'string');
  if (modes.length > 1) problems.push(`set only one of ${modes.join(', ')}: they are alternative ways to reach Redis`);
  if (listed(redis.clusterNodes) && typeof redis.keyPrefix === 'string' && /[{}]/.test(redis.keyPrefix)) {
    problems.push('config.redis.keyPrefix (REDIS_KEY_PREFIX) must not contain { or } on a Redis Cluster: it would be the hash tag of every key, all on one node');
  }
  if (listed(redis.sentinels) && (typeof redis.sentinelName !== 'string' || redis.sentinelName === '')) {
    problems.push('config.redis.sentinelName (REDIS_SENTINEL_NAME) is required with config.redis.sentinels (REDIS_SENTINELS): the primary group the sentinels monitor');
  }
  return problems;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
