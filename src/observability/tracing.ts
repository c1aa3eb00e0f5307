/**
 * OpenTelemetry tracing: the SDK (a tracer provider with a batching OTLP/HTTP exporter and the W3C
 * trace-context propagator), started only when `config.tracing.endpoint` is set. Off, this module
 * loads none of the SDK's code and the pipeline installs nothing, so tracing costs nothing.
 *
 * The gateway's settings come from `config.tracing` (the standard `OTEL_*` variables read in
 * config/env.ts). Once on, the SDK also reads its own transport and tuning variables itself
 * (`OTEL_EXPORTER_OTLP_HEADERS`, `..._TIMEOUT`, `..._COMPRESSION`, `OTEL_BSP_*`, span limits,
 * `OTEL_RESOURCE_ATTRIBUTES`): they are the SDK's to validate, and listed in docs/operations.md.
 *
 * The provider is not registered as the process-wide global: the pipeline passes each request's
 * context explicitly (src/observability/spans.ts), which survives the body parser's stream events
 * where an async-local context would not, and lets several gateways in one process (tests) each
 * export to their own receiver.
 * @module
 */
import type { Config, TracesSampler } from '../config';
import type { TextMapPropagator, Tracer } from '@opentelemetry/api';
import type { Sampler } from '@opentelemetry/sdk-trace-base';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import { reportingExporter } from './trace-export';

/** A started tracing SDK: what the pipeline uses to make spans and carry their context. */
export interface Tracing {
  readonly tracer: Tracer;
  /** W3C `traceparent`/`tracestate`: extracted from requests, injected into upstream calls. */
  readonly propagator: TextMapPropagator;
  /** Export every ended span now (tests, shutdown). */
  forceFlush(): Promise<void>;
  /** Flush and stop exporting; later spans are dropped. */
  shutdown(): Promise<void>;
}

/** The instrumentation scope the gateway's spans are made under. */
const SCOPE = 'switchyard';

/** The SDK packages, required on first use so a gateway with tracing off never loads them. */
function loadSdk() {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    base: require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base'),
    core: require('@opentelemetry/core') as typeof import('@opentelemetry/core'),
    resources: require('@opentelemetry/resources') as typeof import('@opentelemetry/resources'),
    exporter:
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http'),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** The specification's sampler named by `OTEL_TRACES_SAMPLER`, with `OTEL_TRACES_SAMPLER_ARG` as its ratio. */
function samplerOf(base: typeof import('@opentelemetry/sdk-trace-base'), name: TracesSampler, ratio: number): Sampler {
  const root = name.endsWith('always_on')
    ? new base.AlwaysOnSampler()
    : name.endsWith('always_off')
      ? new base.AlwaysOffSampler()
      : new base.TraceIdRatioBasedSampler(ratio);
  return name.startsWith('parentbased_') ? new base.ParentBasedSampler({ root }) : root;
}

/**
 * Start the SDK when `settings.endpoint` is set, else return null (tracing off). Spans are
 * batched and exported as OTLP/HTTP JSON to the endpoint (failed exports counted and logged); the
 * resource carries `service.name` and whatever `OTEL_RESOURCE_ATTRIBUTES` adds.
 */
export function startTracing(settings: Config['tracing'], deps: { logger: Logger; metrics: Metrics }): Tracing | null {
  if (!settings.endpoint) return null;
  const { base, core, resources, exporter } = loadSdk();
  const resource = resources
    .defaultResource()
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
    .merge(resources.resourceFromAttributes({ 'service.name': settings.serviceName }));
  const provider = new base.BasicTracerProvider({
    resource,
    sampler: samplerOf(base, settings.sampler, settings.samplerArg),
    spanProcessors: [
      new base.BatchSpanProcessor(
        reportingExporter(
          new exporter.OTLPTraceExporter({ url: settings.endpoint }),
          deps,
          core.ExportResultCode.SUCCESS,
        ),
      ),
    ],
  });
  return {
    tracer: provider.getTracer(SCOPE),
    propagator: new core.W3CTraceContextPropagator(),
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
