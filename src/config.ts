/**
 * Configuration, read and validated once at boot: `config/default.yaml`, then an optional file
 * named by `SWITCHYARD_CONFIG`, then the environment's per-deployment variables, then (tests only)
 * explicit overrides. Every problem is reported in one error so an operator fixes them all in one
 * go. Nothing else in the code reads `process.env`, except the OpenTelemetry SDK for its own
 * transport and tuning variables once tracing is on (see `observability/tracing.ts`).
 *
 * This file is the module's entry (`import … from './config'`), beside its folder rather than a
 * `config/index.ts`: a build over an older `dist/` then overwrites the old `config.js` instead of
 * leaving it to shadow the folder.
 * @module
 */
export type { Config, ConfigOverrides, TracesSampler } from './config/types';
export { ENV_VARS, RETIRED_ENV_VARS, providerEnvName, providerKeyVariable, providerCredentialHint } from './config/env';
export { ConfigError, loadConfig } from './config/load';
