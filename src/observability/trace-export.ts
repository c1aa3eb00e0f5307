/**
 * Failed trace exports, made visible: the SDK drops a batch its receiver refused or could not be
 * reached for, and says so only to its own diagnostics (silent unless configured). Wrapped around
 * the exporter, every failed batch is counted (`switchyard_trace_export_failures_total`) and the
 * change of state is logged once each way: the first failure after a success, and the recovery.
 * @module
 */
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from './logger';
import type { Metrics } from './metrics';

/** `inner` with its failures counted and logged; `success` is the SDK's `ExportResultCode.SUCCESS`. */
export function reportingExporter(
  inner: SpanExporter,
  deps: { logger: Logger; metrics: Metrics },
  success: ExportResult['code'],
): SpanExporter {
  let failed = 0;
  const report = (result: ExportResult, spans: number): void => {
    if (result.code === success) {
      if (failed > 0) deps.logger.info('trace export recovered', { failed_batches: failed });
      failed = 0;
      return;
    }
    deps.metrics.traceExportFailures.inc();
    if (failed++ === 0)
      deps.logger.warn('trace export failed; spans are dropped until the receiver accepts them again', {
        spans,
        err: result.error,
      });
  };
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
      inner.export(spans, (result) => {
        report(result, spans.length);
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}
