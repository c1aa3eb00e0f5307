/**
 * The one attempt runner of every inference operation (chat, embeddings, and the doors on them):
 * candidates → circuit → attempt → outcome → endpoint stats, with each attempt counted (outcome,
 * latency with its trace as exemplar), traced as a CLIENT span whose context goes upstream, the
 * fallbacks counted, and a failed run mapped to its final error once. An operation brings only
 * its attempt (how to call one endpoint and what a success is) and its plan.
 * @module
 */
import type { Context } from '@opentelemetry/api';
import type { CatalogModel, Endpoint } from '../catalog/types';
import type { Config } from '../config';
import type { GatewayError } from '../errors';
import type { Metrics } from '../observability/metrics';
import type { Tracing } from '../observability/tracing';
import { endUpstreamAttempt, injectTraceContext, sampledTraceId, startUpstreamAttempt } from '../observability/spans';
import { finalError } from '../routing/final-error';
import { runWithFallback, type AttemptResult, type FallbackResult } from '../routing/run-with-fallback';
import type { RoutingState } from '../routing/state';
import type { UpstreamOutcome } from '../transport/outcome';
import type { CallerContext } from './caller';

/** The kinds of inference operation, as spans and timing name them. */
export type InferenceOperation = 'chat' | 'embeddings';

/** Adds the attempt's trace context to an upstream request's headers (with tracing on). */
export type InjectTrace = (headers: Record<string, string>) => void;

/** One attempt on an endpoint, told how to pass the trace on when the request is traced. */
export type Attempt<T> = (
  endpoint: Endpoint,
  timeoutMs: number,
  inject: InjectTrace | undefined,
) => Promise<AttemptResult<T>>;

/** What one run tries. */
export interface RunSpec<T> {
  operation: InferenceOperation;
  /** The model the request named first: a final error is about it. */
  model: CatalogModel;
  /** Endpoints in the order they are tried. */
  candidates: readonly Endpoint[];
  /** The input tokens a success reports, for its span (when the operation knows them then). */
  inputTokens?: (value: T) => number | null;
}

/** A successful run. */
export type RunSuccess<T> = Extract<FallbackResult<T>, { ok: true }>;

/** A failed run, with the error the client gets. */
export type RunFailure = Extract<FallbackResult<unknown>, { ok: false }> & { error: GatewayError };

/** What the runner needs of the gateway. */
export interface RunnerDeps {
  config: Pick<Config, 'chat' | 'upstream' | 'breaker'>;
  metrics: Metrics;
  tracing: Tracing | null;
}

type Exemplar = { trace_id: string } | undefined;

/** One per gateway, shared by every operation. */
export class AttemptRunner {
  /** Each attempt's metrics when untraced (one function for every request, not a closure per request). */
  private readonly onAttempt = (e: Endpoint, outcome: UpstreamOutcome, ms: number): void =>
    this.count(e, outcome, ms, undefined);

  constructor(
    private readonly deps: RunnerDeps,
    private readonly routing: RoutingState,
  ) {}

  /** Try `spec`'s candidates with `attempt` for the calling organization; a failure comes back as a value with its error. */
  async run<T>(ctx: CallerContext, spec: RunSpec<T>, attempt: Attempt<T>): Promise<RunSuccess<T> | RunFailure> {
    const { config, metrics, tracing } = this.deps;
    const orgId = ctx.key.orgId;
    const parent = tracing ? ctx.trace : undefined;
    const each = (e: Endpoint, timeoutMs: number, reason: string | null): Promise<AttemptResult<T>> =>
      tracing && parent
        ? this.traced(tracing, parent, spec, e, reason, (inject) => attempt(e, timeoutMs, inject))
        : attempt(e, timeoutMs, undefined);
    const exemplar = parent ? exemplarOf(parent) : undefined;
    // Chat-like operations have their own timing; embeddings use the upstream block's.
    const timing = spec.operation === 'embeddings' ? config.upstream : config.chat;
    const run = await runWithFallback<T>(spec.candidates, each, {
      attemptTimeoutMs: timing.attemptTimeoutMs,
      deadlineMs: timing.deadlineMs,
      breaker: this.routing.breaker.forOrg(orgId),
      onAttempt: exemplar ? (e, outcome, ms) => this.count(e, outcome, ms, exemplar) : this.onAttempt,
    });
    for (let i = 0; i < run.attempts.length - 1; i++)
      metrics.fallbacks.inc({ provider: run.attempts[i]!.provider, model: spec.model.id });
    this.routing.stats.record(orgId, run.attempts);
    if (run.ok) return run;
    return { ...run, error: finalError(run, spec.model, spec.candidates, config.breaker.cooldownMs / 1000) };
  }

  /** {@link run}, throwing the final error when no attempt succeeded. */
  async runOrThrow<T>(ctx: CallerContext, spec: RunSpec<T>, attempt: Attempt<T>): Promise<RunSuccess<T>> {
    const run = await this.run(ctx, spec, attempt);
    if (!run.ok) throw run.error;
    return run;
  }

  /**
   * The time the gateway added to a request on `route`: its handling time so far minus the
   * upstream's share (for a stream, measured at its first content).
   */
  observeOverhead(route: string, ctx: CallerContext, upstreamMs: number): void {
    const totalMs = Number(process.hrtime.bigint() - ctx.startedAt) / 1e6;
    this.deps.metrics.gatewayOverhead.observe({ route }, Math.max(0, totalMs - upstreamMs) / 1000);
  }

  /**
   * One attempt inside its CLIENT span (the GenAI conventions' `{operation} {model}`), whose W3C
   * context goes to the upstream; for a stream the span ends at the first content (or the failure).
   */
  private async traced<T>(
    tracing: Tracing,
    parent: Context,
    spec: RunSpec<T>,
    e: Endpoint,
    fallbackReason: string | null,
    attempt: (inject: InjectTrace) => Promise<AttemptResult<T>>,
  ): Promise<AttemptResult<T>> {
    const { span, context } = startUpstreamAttempt(tracing, parent, {
      operation: spec.operation,
      provider: e.provider.slug,
      upstreamModel: e.upstreamModel,
      model: e.modelId,
      baseUrl: e.provider.baseUrl,
      fallbackReason,
    });
    const result = await attempt((headers) => injectTraceContext(tracing, context, headers));
    const ok = result.outcome === 'ok';
    endUpstreamAttempt(span, {
      outcome: result.outcome,
      status: ok ? 200 : result.status,
      inputTokens: ok && spec.inputTokens ? spec.inputTokens(result.value) : null,
    });
    return result;
  }

  private count(e: Endpoint, outcome: UpstreamOutcome, ms: number, exemplar: Exemplar): void {
    const { metrics } = this.deps;
    metrics.upstreamRequests.inc({ provider: e.provider.slug, model: e.modelId, outcome });
    metrics.upstreamDuration.observe({
      labels: { provider: e.provider.slug, model: e.modelId },
      value: ms / 1000,
      exemplarLabels: exemplar,
    });
  }
}

/** A sampled trace's id as the latency exemplar. */
function exemplarOf(parent: Context): Exemplar {
  const traceId = sampledTraceId(parent);
  return traceId ? { trace_id: traceId } : undefined;
}
