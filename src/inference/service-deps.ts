/**
 * What the inference services read of the gateway, named here rather than picked from `AppDeps`,
 * so that the services do not import the module that builds them.
 * @module
 */
import type { Config } from '../config';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { Tracing } from '../observability/tracing';
import type { UsageRecorder } from '../usage/types';

/** The parts of the gateway every inference service uses. */
export interface InferenceServiceDeps {
  config: Config;
  metrics: Metrics;
  logger: Logger;
  /** Durable usage recording (generations). */
  recorder: UsageRecorder;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** Uniform draws in [0, 1) for the default provider load balancing. */
  random: () => number;
  /** OpenTelemetry tracing, when on. */
  tracing?: Tracing | null;
}
