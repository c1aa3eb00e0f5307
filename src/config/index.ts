/**
 * Configuration, read and validated once at boot: `config/default.yaml`, then an optional file
 * named by `SWITCHYARD_CONFIG`, then the environment's per-deployment variables, then (tests only)
 * explicit overrides. Every problem is reported in one error so an operator fixes them all in one
 * go. Nothing else in the code reads `process.env`, except the OpenTelemetry SDK for its own
 * transport and tuning variables once tracing is on (see `observability/tracing.ts`).
 * @module
 */
export type { Config, ConfigOverrides, TracesSampler } from './types';
export { ENV_VARS, RETIRED_ENV_VARS, providerEnvName, providerKeyVariable } from './env';
export { ConfigError, loadConfig } from './load';
