/**
 * The environment's part of the configuration: the few variables an operator sets per deployment
 * (addresses, connections, secrets, catalog files, the standard `OTEL_*`), read into a layer over
 * the YAML files. Everything else is a YAML setting, set in the file named by `SWITCHYARD_CONFIG`.
 * @module
 */
import { readFileSync } from 'node:fs';
import type { Config, Layer } from './types';

/** One environment variable and the setting it fills. */
interface EnvVar {
  name: string;
  path: [keyof Config, string];
  /** Also accepted as `<NAME>_FILE` (a path whose contents are the value), the usual way to mount Kubernetes secrets. */
  secret?: boolean;
  /** Comma-separated (`REDIS_CLUSTER_NODES=h1:7000,h2:7000`); blanks between commas are ignored. */
  list?: boolean;
}

/**
 * Environment variable → config path: what differs from one deployment to the next (README's
 * configuration table). Tuning that is the same everywhere a release runs has no variable, so
 * that it is written down once, in `config/default.yaml`.
 */
export const ENV_VARS: ReadonlyArray<EnvVar> = [
  { name: 'HOST', path: ['server', 'host'] },
  { name: 'PORT', path: ['server', 'port'] },
  { name: 'METRICS_PORT', path: ['server', 'metricsPort'] },
  { name: 'TRUST_PROXY', path: ['server', 'trustProxy'] },
  { name: 'DATABASE_URL', path: ['database', 'url'], secret: true },
  { name: 'SWITCHYARD_DATA_DIR', path: ['database', 'dataDir'] },
  { name: 'REDIS_URL', path: ['redis', 'url'], secret: true },
  { name: 'REDIS_KEY_PREFIX', path: ['redis', 'keyPrefix'] },
  { name: 'REDIS_CLUSTER_NODES', path: ['redis', 'clusterNodes'], list: true },
  { name: 'REDIS_SENTINELS', path: ['redis', 'sentinels'], list: true },
  { name: 'REDIS_SENTINEL_NAME', path: ['redis', 'sentinelName'] },
  { name: 'REDIS_PASSWORD', path: ['redis', 'password'], secret: true },
  { name: 'REDIS_SENTINEL_PASSWORD', path: ['redis', 'sentinelPassword'], secret: true },
  { name: 'REDIS_TLS', path: ['redis', 'tls'] },
  { name: 'SWITCHYARD_BOOTSTRAP_KEY', path: ['auth', 'bootstrapKey'], secret: true },
  { name: 'LOG_LEVEL', path: ['log', 'level'] },
  { name: 'SWITCHYARD_MODELS_FILE', path: ['catalog', 'modelsFile'] },
  { name: 'SWITCHYARD_CHAT_MODELS_FILE', path: ['catalog', 'chatModelsFile'] },
  { name: 'SWITCHYARD_PROVIDERS_FILE', path: ['catalog', 'providersFile'] },
  { name: 'PASSTHROUGH_BASE_URL', path: ['passthrough', 'baseUrl'] },
  { name: 'PASSTHROUGH_API_KEY', path: ['passthrough', 'apiKey'], secret: true },
  { name: 'RANKINGS_SCOPE', path: ['rankings', 'scope'] },
  { name: 'EMBEDDINGS_CACHE_REDIS_URL', path: ['embeddingsCache', 'redisUrl'], secret: true },
  { name: 'DASHBOARD_ENABLED', path: ['dashboard', 'enabled'] },
  { name: 'DASHBOARD_SESSION_SECRET', path: ['dashboard', 'sessionSecret'], secret: true },
  { name: 'OTEL_SERVICE_NAME', path: ['tracing', 'serviceName'] },
  { name: 'OTEL_TRACES_SAMPLER', path: ['tracing', 'sampler'] },
  { name: 'OTEL_TRACES_SAMPLER_ARG', path: ['tracing', 'samplerArg'] },
  { name: 'AWS_ACCESS_KEY_ID', path: ['aws', 'accessKeyId'], secret: true },
  { name: 'AWS_SECRET_ACCESS_KEY', path: ['aws', 'secretAccessKey'], secret: true },
  { name: 'AWS_SESSION_TOKEN', path: ['aws', 'sessionToken'], secret: true },
  { name: 'AWS_REGION', path: ['aws', 'region'] },
];

/**
 * Variables earlier releases read, and the YAML setting that replaced each. One still set is a
 * configuration problem (boot fails naming the setting), not a warning: an operator who set
 * `ANALYTICS_RETENTION_DAYS` or `RANKINGS_EPSILON` would otherwise run, unaware, with the default.
 */
export const RETIRED_ENV_VARS: ReadonlyArray<{ name: string; path: [keyof Config, string] }> = [
  { name: 'BODY_LIMIT_BYTES', path: ['server', 'bodyLimitBytes'] },
  { name: 'SHUTDOWN_TIMEOUT_MS', path: ['server', 'shutdownTimeoutMs'] },
  { name: 'HEADERS_TIMEOUT_MS', path: ['server', 'headersTimeoutMs'] },
  { name: 'REQUEST_TIMEOUT_MS', path: ['server', 'requestTimeoutMs'] },
  { name: 'DATABASE_POOL_SIZE', path: ['database', 'poolSize'] },
  { name: 'REDIS_COMMAND_TIMEOUT_MS', path: ['redis', 'commandTimeoutMs'] },
  { name: 'RATE_LIMIT_WINDOW_MS', path: ['rateLimit', 'windowMs'] },
  { name: 'RATE_LIMIT_MAX', path: ['rateLimit', 'limit'] },
  { name: 'RATE_LIMIT_FAIL_MODE', path: ['rateLimit', 'failMode'] },
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
  { name: 'PASSTHROUGH_TIMEOUT_MS', path: ['passthrough', 'timeoutMs'] },
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
  { name: 'EMBEDDINGS_CACHE_LOOKUP_TIMEOUT_MS', path: ['embeddingsCache', 'lookupTimeoutMs'] },
  { name: 'EMBEDDINGS_CACHE_MAX_PENDING_WRITES', path: ['embeddingsCache', 'maxPendingWrites'] },
];

/** A retired variable still set, with the YAML setting (and its file) to use instead. */
export function retiredVariableProblems(env: NodeJS.ProcessEnv): string[] {
  return RETIRED_ENV_VARS.filter((v) => env[v.name] !== undefined && env[v.name] !== '').map(
    (v) =>
      `${v.name} is no longer read from the environment: set ${v.path.join('.')} in the YAML file named by SWITCHYARD_CONFIG (see config/default.yaml)`,
  );
}

/** Environment values for the settings of {@link ENV_VARS}, secrets read from `<NAME>_FILE`. */
export function envLayer(env: NodeJS.ProcessEnv, problems: string[]): Layer {
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
    const parsed = v.list ? listOf(value) : value;
    layer[section] = { ...(layer[section] ?? {}), [key]: parsed };
  }
  return layer;
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

/**
 * What would configure a provider, as an operator is told it: its key variable, or for the clouds
 * the other credential its wire format takes (an Entra token, the standard AWS keys).
 */
export function providerCredentialHint(slug: string, adapter: string): string {
  const key = providerKeyVariable(slug);
  if (adapter === 'azure') return `${key} or ${providerEnvName(slug)}_ENTRA_TOKEN`;
  if (adapter === 'bedrock') return `${key} or AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY`;
  return key;
}

/** A provider's settings from the environment: `<NAME>_<KIND>`, keyed by the env form of its slug. */
export interface ProviderEnv {
  baseUrl?: string;
  apiKey?: string;
  /** `<NAME>_API_KEYS`: a key pool, comma-separated. */
  apiKeys?: string[];
  /** `<NAME>_API_VERSION` (Azure OpenAI's `api-version`). */
  apiVersion?: string;
  /** `<NAME>_REGION` (a Bedrock provider's AWS region, over `AWS_REGION`). */
  region?: string;
  /** `<NAME>_ENTRA_TOKEN`: a Microsoft Entra bearer token (Azure OpenAI). */
  entraToken?: string;
  /** `<NAME>_ENTRA_TOKEN_FILE`: where a rotated Entra token is read from (re-read as it changes). */
  entraTokenFile?: string;
  /** `<NAME>_RESPONSES` (`true` / `false`): whether the provider serves OpenAI's `/responses`, over its YAML. */
  responses?: boolean;
}

/** The provider variables: kind → the setting it fills, and whether `<NAME>_<KIND>_FILE` reads it from a file. */
const PROVIDER_KINDS: Readonly<Record<string, { key: keyof ProviderEnv; file: boolean }>> = {
  BASE_URL: { key: 'baseUrl', file: false },
  API_KEY: { key: 'apiKey', file: true },
  API_KEYS: { key: 'apiKeys', file: true },
  API_VERSION: { key: 'apiVersion', file: false },
  REGION: { key: 'region', file: false },
  ENTRA_TOKEN: { key: 'entraToken', file: false },
  RESPONSES: { key: 'responses', file: false },
};

const PROVIDER_ENV =
  /^(?<prefix>[A-Z0-9_]+?)_(?<kind>BASE_URL|API_KEYS|API_KEY|API_VERSION|REGION|ENTRA_TOKEN|RESPONSES)(?<file>_FILE)?$/;
const PROVIDER_PATH = /^config\.providers\.([A-Z0-9_]+)\.([A-Za-z]+)$/;
const VARIABLE_SUFFIX: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(PROVIDER_KINDS).map(([kind, k]) => [k.key, kind])),
  entraTokenFile: 'ENTRA_TOKEN_FILE',
};

/** A comma list with blanks between commas dropped. */
function listOf(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * Generic provider overrides: every `<NAME>_BASE_URL`, `<NAME>_API_KEY`, `<NAME>_API_KEYS`,
 * `<NAME>_API_VERSION`, `<NAME>_REGION`, `<NAME>_ENTRA_TOKEN`, `<NAME>_RESPONSES` (the secrets also as `…_FILE`) in the
 * environment. Which names matter is decided by the catalog (its slugs), not here.
 */
export function providerEnvLayer(env: NodeJS.ProcessEnv, problems: string[]): Layer {
  const out: Record<string, ProviderEnv> = {};
  for (const [name, raw] of Object.entries(env)) {
    const groups = PROVIDER_ENV.exec(name)?.groups;
    if (!groups || raw === undefined || raw === '') continue;
    const { prefix = '', kind = '', file } = groups;
    const spec = PROVIDER_KINDS[kind];
    const entry = (out[prefix] ??= {});
    if (kind === 'ENTRA_TOKEN' && file) {
      entry.entraTokenFile = raw;
      continue;
    }
    if (!spec || (file && !spec.file)) continue;
    let value = raw;
    if (file) {
      try {
        value = readFileSync(raw, 'utf8').trim();
      } catch {
        problems.push(`${name}: cannot read ${raw}`);
        continue;
      }
    }
    if (spec.key === 'apiKeys') entry.apiKeys = listOf(value);
    else if (spec.key === 'responses') {
      if (value === 'true' || value === 'false') entry.responses = value === 'true';
      else problems.push(`${name}: must be true or false`);
    } else entry[spec.key] = value;
  }
  return Object.keys(out).length > 0 ? { providers: out } : {};
}

/**
 * The tracing endpoint from OpenTelemetry's variables: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it
 * is, else `OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` appended (as the specification says);
 * `OTEL_SDK_DISABLED=true` turns tracing off whatever else is set. Only OTLP over HTTP is
 * exported, so a gRPC protocol setting is a problem (the endpoint would be a gRPC port).
 */
export function otelEnvLayer(env: NodeJS.ProcessEnv, problems: string[]): Layer {
  for (const name of ['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) {
    const protocol = env[name];
    if (protocol && !protocol.startsWith('http/'))
      problems.push(`${name}: only OTLP over HTTP (http/json) is supported, not ${protocol}`);
  }
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { tracing: { endpoint: null } };
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (traces) return { tracing: { endpoint: traces } };
  if (base) return { tracing: { endpoint: `${base.replace(/\/+$/, '')}/v1/traces` } };
  return {};
}

const VARIABLE_OF = new Map<string, string>([
  ...ENV_VARS.map((v): [string, string] => [`config.${v.path.join('.')}`, v.name]),
  ['config.tracing.endpoint', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT'],
]);

/**
 * A setting as a problem names it: `config.server.port (PORT)` when a variable sets it, so the
 * operator knows where to look; just `config.files.maxBytes` for a YAML-only setting.
 */
export function settingLabel(configPath: string): string {
  const provider = PROVIDER_PATH.exec(configPath);
  const variable = provider
    ? `${provider[1]}_${VARIABLE_SUFFIX[provider[2] ?? ''] ?? 'API_KEY'}`
    : VARIABLE_OF.get(configPath);
  return variable ? `${configPath} (${variable})` : configPath;
}
