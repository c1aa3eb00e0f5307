/**
 * Loading the configuration: the layers in order, merged at every depth, validated against
 * `schemas/config.json` and the rules between settings, with every problem in one error.
 * @module
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { createAjv, toIssues } from '../validation/ajv';
import { fromRoot } from '../paths';
import { envLayer, otelEnvLayer, providerEnvLayer, retiredVariableProblems, settingLabel } from './env';
import type { Config, ConfigOverrides, Layer } from './types';

/** Thrown at boot when configuration is invalid; lists every problem. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

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

/** The configuration's schema (schemas/config.json); data it accepts is a {@link Config}. */
const validate = createAjv(true).compile<Config>(
  JSON.parse(readFileSync(fromRoot('schemas', 'config.json'), 'utf8')) as object,
);

/**
 * Build the configuration: `config/default.yaml`, then the file named by `SWITCHYARD_CONFIG`, then
 * the environment, then `overrides`. Pure apart from file reads, so tests call it with their own `env`.
 * @param env - usually `process.env`
 * @param overrides - applied last; for tests and embedding
 * @throws ConfigError listing every invalid or missing value, and every retired variable still set
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: ConfigOverrides = {}): Config {
  const problems: string[] = retiredVariableProblems(env);
  const layers: Array<Record<string, unknown>> = [
    env.SWITCHYARD_CONFIG ? readYaml(path.resolve(env.SWITCHYARD_CONFIG), problems) : {},
    envLayer(env, problems),
    providerEnvLayer(env, problems),
    otelEnvLayer(env, problems),
    overrides,
  ];
  const layered = layers.reduce(merge, readYaml(fromRoot('config', 'default.yaml'), problems));
  const data = structuredClone(layered);
  const valid = validate(data);
  if (!valid)
    for (const issue of toIssues('config', validate.errors))
      problems.push(`${settingLabel(issue.path)} ${issue.message}`);
  problems.push(...crossFieldProblems(data));
  if (!valid || problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(data);
}

/** `config.<dotted>` with its variable, if it has one (see {@link settingLabel}). */
const at = (dotted: string) => settingLabel(`config.${dotted}`);

/**
 * Rules between settings that one schema property cannot express. Checked on the merged data
 * even when other values are invalid, so every problem is still reported together.
 */
function crossFieldProblems(data: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { port, metricsPort } = (data.server ?? {}) as { port?: unknown; metricsPort?: unknown };
  // Port 0 means "any free port" for each listener, so two zeros do not collide.
  if (typeof port === 'number' && port !== 0 && port === metricsPort) {
    problems.push(`${at('server.metricsPort')} must differ from ${at('server.port')}: both are ${port}`);
  }
  const { headersTimeoutMs, requestTimeoutMs } = (data.server ?? {}) as {
    headersTimeoutMs?: unknown;
    requestTimeoutMs?: unknown;
  };
  const { uploadDeadlineMs } = (data.files ?? {}) as { uploadDeadlineMs?: unknown };
  // Node refuses a request timeout below the headers timeout; an upload deadline past the request
  // timeout would let Node cut the connection bare before the upload's own 408.
  if (
    typeof headersTimeoutMs === 'number' &&
    typeof requestTimeoutMs === 'number' &&
    requestTimeoutMs < headersTimeoutMs
  ) {
    problems.push(
      `${at('server.requestTimeoutMs')} must be at least ${at('server.headersTimeoutMs')}: ${requestTimeoutMs} < ${headersTimeoutMs}`,
    );
  }
  if (
    typeof uploadDeadlineMs === 'number' &&
    typeof requestTimeoutMs === 'number' &&
    uploadDeadlineMs >= requestTimeoutMs
  ) {
    problems.push(
      `${at('files.uploadDeadlineMs')} must be below ${at('server.requestTimeoutMs')}: ${uploadDeadlineMs} >= ${requestTimeoutMs}`,
    );
  }
  const { maxBytes, spoolMaxBytes } = (data.files ?? {}) as { maxBytes?: unknown; spoolMaxBytes?: unknown };
  // Every upload is spooled whole before it is stored: a spool smaller than one file refuses the largest.
  if (typeof maxBytes === 'number' && typeof spoolMaxBytes === 'number' && spoolMaxBytes < maxBytes) {
    problems.push(
      `${at('files.spoolMaxBytes')} must be at least ${at('files.maxBytes')}: ${spoolMaxBytes} < ${maxBytes}`,
    );
  }
  problems.push(...redisTopologyProblems((data.redis ?? {}) as Record<string, unknown>));
  return problems;
}

/** At most one way to reach Redis, and a Sentinel setup names its primary. */
function redisTopologyProblems(redis: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const listed = (value: unknown) => Array.isArray(value) && value.length > 0;
  const modes = [
    typeof redis.url === 'string' && at('redis.url'),
    listed(redis.clusterNodes) && at('redis.clusterNodes'),
    listed(redis.sentinels) && at('redis.sentinels'),
  ].filter((m): m is string => typeof m === 'string');
  if (modes.length > 1) problems.push(`set only one of ${modes.join(', ')}: they are alternative ways to reach Redis`);
  if (listed(redis.clusterNodes) && typeof redis.keyPrefix === 'string' && /[{}]/.test(redis.keyPrefix)) {
    problems.push(
      `${at('redis.keyPrefix')} must not contain { or } on a Redis Cluster: it would be the hash tag of every key, all on one node`,
    );
  }
  if (listed(redis.sentinels) && (typeof redis.sentinelName !== 'string' || redis.sentinelName === '')) {
    problems.push(
      `${at('redis.sentinelName')} is required with ${at('redis.sentinels')}: the primary group the sentinels monitor`,
    );
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
