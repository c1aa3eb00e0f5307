/**
 * Configuration, read and validated once at boot: `config/default.yaml`, then an optional file
 * named by `SWITCHYARD_CONFIG`, then environment variables, then (tests only) explicit overrides.
 * Every problem is reported in one error so an operator fixes them all in one go. Nothing else
 * in the code reads `process.env`.
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
  /** Embeddings catalog files (paths relative to the project root, or absolute). */
  catalog: { modelsFile: string; providersFile: string };
  /** Upstream HTTP: per-attempt timeout, overall deadline across fallbacks, connection pool. */
  upstream: { attemptTimeoutMs: number; deadlineMs: number; connectionsPerOrigin: number; keepAliveTimeoutMs: number };
  /** Circuit breaker per provider endpoint: consecutive failures that open it, and the cooldown before a probe. */
  breaker: { failureThreshold: number; cooldownMs: number };
  /**
   * Per-provider overrides from `<SLUG>_BASE_URL` / `<SLUG>_API_KEY`, keyed by the env form of the slug
   * (upper-cased, non-alphanumerics → `_`, e.g. `DEEPINFRA`). See {@link providerEnvName}.
   */
  providers: Record<string, { baseUrl?: string; apiKey?: string }>;
  /**
   * Uploaded files: the size limit (larger → 413), the size of the chunks content is stored in, and
   * how many uploads one replica runs at once (each holds a database connection; more → 503).
   */
  files: {
    maxBytes: number;
    chunkBytes: number;
    maxConcurrentUploads: number;
    /** Uploads one organization runs at once on a replica; below `maxConcurrentUploads`, so others always get a slot. */
    maxConcurrentUploadsPerOrg: number;
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
     * Off (default): the answer goes at once, and a crash can lose the records of the answers sent
     * in its last `addLingerMs`; on, each answer waits up to `addLingerMs`, so pair it with 0.
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
   * with a per-model organization threshold), the in-process rollup's interval (0 = off) and
   * lookback for late records, the route's limits, and the classifier's sampling.
   */
  rankings: {
    scope: 'organization' | 'installation';
    minOrganizations: number;
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
   * inputs share entries (`organization` or `workspace`), entry lifetime, the in-process store's
   * byte bound (embedded mode), the longest a lookup may wait for the store before it is skipped,
   * and how many entry writes may be pending at once (more are dropped).
   */
  embeddingsCache: {
    enabled: boolean;
    scope: 'organization' | 'workspace';
    ttlMs: number;
    maxBytes: number;
    lookupTimeoutMs: number;
    maxPendingWrites: number;
  };
  /** The admin dashboard (docs/dashboard.md): served or not, and the secret its session cookies are signed with. */
  dashboard: { enabled: boolean; sessionSecret: string | null };
  /** Dashboard sessions: how long a sign-in lasts, and sign-in attempts per client IP per minute. */
  dashboardSessions: { ttlMs: number; signInPerMinute: number };
}

/** Deep-partial config used for file layers and test overrides. */
export type ConfigOverrides = { [K in keyof Config]?: Partial<Config[K]> };

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
  { name: 'SWITCHYARD_PROVIDERS_FILE', path: ['catalog', 'providersFile'] },
  { name: 'UPSTREAM_ATTEMPT_TIMEOUT_MS', path: ['upstream', 'attemptTimeoutMs'] },
  { name: 'UPSTREAM_DEADLINE_MS', path: ['upstream', 'deadlineMs'] },
  { name: 'FILES_MAX_BYTES', path: ['files', 'maxBytes'] },
  { name: 'FILES_MAX_CONCURRENT_UPLOADS', path: ['files', 'maxConcurrentUploads'] },
  { name: 'FILES_MAX_CONCURRENT_UPLOADS_PER_ORG', path: ['files', 'maxConcurrentUploadsPerOrg'] },
  { name: 'FILES_UPLOAD_IDLE_TIMEOUT_MS', path: ['files', 'uploadIdleTimeoutMs'] },
  { name: 'FILES_UPLOAD_DEADLINE_MS', path: ['files', 'uploadDeadlineMs'] },
  { name: 'USAGE_ANSWER_AFTER_RECORD', path: ['usage', 'answerAfterRecord'] },
  { name: 'PASSTHROUGH_BASE_URL', path: ['passthrough', 'baseUrl'] },
  { name: 'PASSTHROUGH_API_KEY', path: ['passthrough', 'apiKey'], secret: true },
  { name: 'PASSTHROUGH_TIMEOUT_MS', path: ['passthrough', 'timeoutMs'] },
  { name: 'RANKINGS_SCOPE', path: ['rankings', 'scope'] },
  { name: 'RANKINGS_MIN_ORGANIZATIONS', path: ['rankings', 'minOrganizations'] },
  { name: 'RANKINGS_ROLLUP_INTERVAL_MS', path: ['rankings', 'rollupIntervalMs'] },
  { name: 'RANKINGS_SAMPLE_RATE', path: ['rankings', 'sampleRate'] },
  { name: 'ANALYTICS_TIMEOUT_MS', path: ['analytics', 'timeoutMs'] },
  { name: 'ANALYTICS_RETENTION_DAYS', path: ['analytics', 'retentionDays'] },
  { name: 'ANALYTICS_MAINTENANCE_INTERVAL_MS', path: ['analytics', 'maintenanceIntervalMs'] },
  { name: 'EMBEDDINGS_CACHE_ENABLED', path: ['embeddingsCache', 'enabled'] },
  { name: 'EMBEDDINGS_CACHE_SCOPE', path: ['embeddingsCache', 'scope'] },
  { name: 'EMBEDDINGS_CACHE_TTL_MS', path: ['embeddingsCache', 'ttlMs'] },
  { name: 'EMBEDDINGS_CACHE_MAX_BYTES', path: ['embeddingsCache', 'maxBytes'] },
  { name: 'EMBEDDINGS_CACHE_LOOKUP_TIMEOUT_MS', path: ['embeddingsCache', 'lookupTimeoutMs'] },
  { name: 'EMBEDDINGS_CACHE_MAX_PENDING_WRITES', path: ['embeddingsCache', 'maxPendingWrites'] },
  { name: 'DASHBOARD_ENABLED', path: ['dashboard', 'enabled'] },
  { name: 'DASHBOARD_SESSION_SECRET', path: ['dashboard', 'sessionSecret'], secret: true },
];

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

function merge(base: Layer, over: Layer | ConfigOverrides): Layer {
  const out: Layer = { ...base };
  for (const [section, values] of Object.entries(over)) {
    if (values && typeof values === 'object' && !Array.isArray(values)) {
      out[section] = { ...(base[section] ?? {}), ...(values as Record<string, unknown>) };
    } else {
      out[section] = values as Record<string, unknown>;
    }
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
  let layered = readYaml(fromRoot('config', 'default.yaml'), problems);
  if (env.SWITCHYARD_CONFIG) layered = merge(layered, readYaml(path.resolve(env.SWITCHYARD_CONFIG), problems));
  layered = merge(layered, envLayer(env, problems));
  layered = merge(layered, providerEnvLayer(env, problems));
  layered = merge(layered, overrides);
  const data = structuredClone(layered);
  if (!validate(data)) {
    const byVar = new Map(ENV_VARS.map((v) => [`config.${v.path.join('.')}`, v.name]));
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
function crossFieldProblems(data: Layer): string[] {
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
  const { maxConcurrentUploads: total, maxConcurrentUploadsPerOrg: perOrg } = (data.files ?? {}) as { maxConcurrentUploads?: unknown; maxConcurrentUploadsPerOrg?: unknown };
  // Below the total, so one organization can never hold every slot (a single slot is shared as it is).
  if (typeof total === 'number' && typeof perOrg === 'number' && total > 1 && perOrg >= total) {
    problems.push(
      `config.files.maxConcurrentUploadsPerOrg (FILES_MAX_CONCURRENT_UPLOADS_PER_ORG) must be below config.files.maxConcurrentUploads (FILES_MAX_CONCURRENT_UPLOADS): ${perOrg} >= ${total}`,
    );
  }
  problems.push(...redisTopologyProblems(data.redis ?? {}));
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
