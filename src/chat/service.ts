/**
 * The chat service: plans a request (models, candidates, worst case), runs the fallback runner
 * over the chat adapters, whole or streamed, then counts the cost, records usage and builds the
 * answer. Route handlers call only this.
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { AppDeps } from '../deps';
import type { Catalog } from '../catalog/catalog';
import type { Endpoint } from '../catalog/types';
import type { CallerContext } from '../embeddings/types';
import { generationId } from '../embeddings/ids';
import type { UpstreamHttp, UpstreamOutcome } from '../providers/http';
import { chatAdapterFor } from '../providers/chat-registry';
import type { ChatJob, ParsedChat, StreamHead } from '../providers/chat-types';
import type { Circuits } from '../routing/breaker';
import type { EndpointStats } from '../routing/endpoint-stats';
import { finalError } from '../routing/final-error';
import { runWithFallback, type AttemptResult, type FallbackResult } from '../routing/run-with-fallback';
import { PendingWork } from '../usage/pending-work';
import { completionBody, errorChunk, usageChunk } from './answer';
import { billChat } from './billed';
import { planChat, type ChatPlan } from './plan';
import { writeUsage } from '../usage/write';
import { chatUsageEvent, type ChatOutcome } from './record';
import { StreamedChat } from './stream';
import type { Context } from '@opentelemetry/api';
import type { Tracing } from '../observability/tracing';
import { endUpstreamAttempt, injectTraceContext, startUpstreamAttempt } from '../observability/spans';
import type { ChatBody } from './types';
import { wholeBody } from '../providers/raw-json';

type ServiceDeps = Pick<AppDeps, 'config' | 'metrics' | 'logger' | 'recorder' | 'clock' | 'random'> & Partial<Pick<AppDeps, 'tracing'>>;

/** Adds the attempt's trace context to an upstream request's headers (with tracing on). */
type InjectTrace = (headers: Record<string, string>) => void;

/** One attempt on an endpoint, told how to pass the trace on when the request is traced. */
type Attempt<T> = (e: Endpoint, timeoutMs: number, inject?: InjectTrace) => Promise<AttemptResult<T>>;

/** A whole answer, ready to send. */
export interface ChatAnswer {
  id: string;
  body: string;
  costUsd: number;
  /** Settles once the usage record is durable (never rejects). */
  recorded: Promise<void>;
}

/** Routing state shared with the embeddings service: one breaker and one set of endpoint stats per gateway. */
export interface ChatRouting {
  circuits(orgId: string): Circuits;
  stats: EndpointStats;
}

/** The text of a whole answer's choices (content, refusals, tool calls): what the gateway counts when usage is missing. */
function answerText(parsed: ParsedChat): string {
  const parts: string[] = [];
  for (const c of parsed.choices) {
    if (c.message.content) parts.push(c.message.content);
    if (c.message.refusal) parts.push(c.message.refusal);
    for (const call of c.message.tool_calls ?? []) parts.push(call.function.name, call.function.arguments);
  }
  return parts.join('\n');
}

/** One per app instance. */
export class ChatService {
  /** Settles and usage records of answered requests still running ({@link drain}). */
  private readonly pending = new PendingWork();

  constructor(
    private readonly deps: ServiceDeps,
    private readonly catalog: Catalog,
    private readonly http: UpstreamHttp,
    private readonly routing: ChatRouting,
  ) {}

  /** The first half of POST /chat/completions (see `plan.ts`). */
  plan(body: ChatBody): ChatPlan {
    return planChat(this.catalog, body, this.deps.random);
  }

  /** A whole (non-streamed) answer. Throws a GatewayError when no attempt succeeded. */
  async complete(ctx: CallerContext, body: ChatBody, plan: ChatPlan): Promise<ChatAnswer> {
    const job: ChatJob = { body, stream: false, maxTokens: plan.maxTokens };
    const run = await this.run(ctx, plan, (e, timeoutMs, inject) => this.callWhole(e, job, timeoutMs, inject));
    if (!run.ok) throw this.failure(run, plan);
    const { value: parsed, endpoint } = run;
    const { usage, estimated, cost } = billChat(this.deps, ctx.requestId, plan, endpoint, parsed.usage, () => answerText(parsed));
    const head = this.head(endpoint, generationId(this.deps.clock(), 'gen'));
    const totalMs = this.since(ctx);
    const recorded = this.record(ctx, body, {
      id: head.id,
      endpoint,
      usage,
      cost,
      estimated,
      streamed: false,
      finishReason: parsed.finishReason,
      nativeFinishReason: parsed.nativeFinishReason,
      toolCalls: parsed.toolCalls,
      upstreamId: parsed.upstreamId,
      ttftMs: totalMs,
      totalMs,
      generationMs: run.upstreamMs,
      attempts: run.attempts.length,
      modalityLabel: plan.prompt.modalityLabel,
      status: 'ok',
    });
    return { id: head.id, body: completionBody(head, parsed, usage, cost), costUsd: cost, recorded };
  }

  /**
   * A streamed answer, written to `res` as it arrives. Resolves with what it cost once the stream
   * is over. Throws a GatewayError (a normal error answer) only while nothing has been sent.
   * @param onStart - called with the generation id once the first content is on its way
   */
  async stream(ctx: CallerContext, body: ChatBody, plan: ChatPlan, res: ServerResponse, onStart?: (id: string) => void): Promise<number> {
    const { config } = this.deps;
    const id = generationId(this.deps.clock(), 'gen');
    const client = new StreamedChat(res, { http: this.http, idleTimeoutMs: config.chat.streamIdleTimeoutMs, keepAliveMs: config.chat.keepAliveMs, id, created: this.created() });
    const job: ChatJob = { body, stream: true, maxTokens: plan.maxTokens };
    const run = await this.run(ctx, plan, (e, timeoutMs, inject) => client.attempt(chatAdapterFor(e.provider.adapter), job, e, timeoutMs, inject));
    if (!run.ok) {
      const error = this.failure(run, plan);
      if (!client.opened) throw error;
      client.finish(errorChunk({ id, model: plan.primary.id, provider: run.lastEndpoint?.provider.name ?? '', created: this.created() }, error.status, error.message));
      return 0;
    }
    const live = run.value;
    onStart?.(id);
    const end = await live.ended;
    const ttftMs = this.since(ctx) - (performance.now() - live.firstContentAt);
    const summary = live.translator.summary();
    const { usage, estimated, cost } = billChat(this.deps, ctx.requestId, plan, live.endpoint, summary.usage, () => summary.generatedText());
    const head = this.head(live.endpoint, id);
    this.deps.metrics.chatStreamEnds.inc({ outcome: end.kind });
    this.deps.metrics.chatTimeToFirstToken.observe({ provider: live.endpoint.provider.slug, model: live.endpoint.modelId }, ttftMs / 1000);
    const recorded = this.record(ctx, body, {
      id,
      endpoint: live.endpoint,
      usage,
      cost,
      estimated,
      streamed: true,
      finishReason: end.kind === 'upstream_error' ? 'error' : summary.finishReason,
      nativeFinishReason: end.kind === 'client_left' ? 'client_disconnected' : summary.nativeFinishReason,
      toolCalls: summary.toolCalls,
      upstreamId: summary.upstreamId,
      ttftMs,
      totalMs: this.since(ctx),
      generationMs: performance.now() - live.attemptStart,
      attempts: run.attempts.length,
      modalityLabel: plan.prompt.modalityLabel,
      status: end.kind === 'upstream_error' ? 'error' : 'ok',
    });
    if (this.deps.config.usage.answerAfterRecord && end.kind === 'done') await recorded;
    client.finish(end.kind === 'upstream_error' ? errorChunk(head, end.code, end.message) : usageChunk(head, usage, cost));
    return cost;
  }

  /** The fallback runner over the plan's candidates, its attempts counted (and traced, with tracing on). */
  private async run<T>(ctx: CallerContext, plan: ChatPlan, attempt: Attempt<T>): Promise<FallbackResult<T>> {
    const { config, metrics, tracing } = this.deps;
    const parent = ctx.trace;
    const each = (e: Endpoint, timeoutMs: number, reason: string | null) =>
      tracing && parent ? this.traced(tracing, parent, e, reason, (inject) => attempt(e, timeoutMs, inject)) : attempt(e, timeoutMs);
    const run = await runWithFallback(plan.candidates, each, {
      attemptTimeoutMs: config.chat.attemptTimeoutMs,
      deadlineMs: config.chat.deadlineMs,
      breaker: this.routing.circuits(ctx.key.orgId),
      onAttempt: (e, outcome, ms) => this.countAttempt(e, outcome, ms),
    });
    for (const a of run.attempts.slice(0, -1)) metrics.fallbacks.inc({ provider: a.provider, model: plan.primary.id });
    this.routing.stats.record(ctx.key.orgId, run.attempts);
    return run;
  }

  /**
   * One attempt inside its CLIENT span (the GenAI conventions' `chat {model}`), whose W3C context goes
   * to the upstream; for a stream the span ends at the first content (or the failure).
   */
  private async traced<T>(tracing: Tracing, parent: Context, e: Endpoint, fallbackReason: string | null, attempt: (inject: InjectTrace) => Promise<AttemptResult<T>>): Promise<AttemptResult<T>> {
    const { span, context } = startUpstreamAttempt(tracing, parent, {
      operation: 'chat',
      provider: e.provider.slug,
      upstreamModel: e.upstreamModel,
      model: e.modelId,
      baseUrl: e.provider.baseUrl,
      fallbackReason,
    });
    const result = await attempt((headers) => injectTraceContext(tracing, context, headers));
    endUpstreamAttempt(span, { outcome: result.outcome, status: result.outcome === 'ok' ? 200 : result.status, inputTokens: null });
    return result;
  }

  private failure(run: Extract<FallbackResult<unknown>, { ok: false }>, plan: ChatPlan) {
    return finalError(run, plan.primary, plan.candidates, this.deps.config.breaker.cooldownMs / 1000);
  }

  private async callWhole(endpoint: Endpoint, job: ChatJob, timeoutMs: number, inject?: InjectTrace): Promise<AttemptResult<ParsedChat>> {
    const adapter = chatAdapterFor(endpoint.provider.adapter);
    const req = adapter.buildRequest(job, endpoint);
    inject?.(req.headers);
    const res = await this.http.post(req, adapter, timeoutMs);
    if (res.outcome !== 'ok') return res;
    const parsed = adapter.parseResponse(wholeBody(res.body));
    if (!parsed || parsed.choices.length === 0) return { outcome: 'server', status: res.status, reason: 'invalid chat completion body' };
    return { outcome: 'ok', value: parsed, upstreamMs: res.elapsedMs };
  }

  private countAttempt(e: Endpoint, outcome: UpstreamOutcome, ms: number): void {
    const { metrics } = this.deps;
    metrics.upstreamRequests.inc({ provider: e.provider.slug, model: e.modelId, outcome });
    metrics.upstreamDuration.observe({ labels: { provider: e.provider.slug, model: e.modelId }, value: ms / 1000 });
  }

  private head(endpoint: Endpoint, id: string): StreamHead {
    return { id, model: endpoint.modelId, provider: endpoint.provider.name, created: this.created() };
  }

  private created(): number {
    return Math.floor(this.deps.clock() / 1000);
  }

  private since(ctx: CallerContext): number {
    return Number(process.hrtime.bigint() - ctx.startedAt) / 1e6;
  }

  /** Count and record one answered call; shutdown waits for the record ({@link drain}). */
  private record(ctx: CallerContext, body: ChatBody, o: ChatOutcome): Promise<void> {
    const { metrics } = this.deps;
    const labels = { provider: o.endpoint.provider.slug, model: o.endpoint.modelId };
    metrics.chatTokens.inc({ ...labels, kind: 'prompt' }, o.usage.promptTokens);
    metrics.chatTokens.inc({ ...labels, kind: 'completion' }, o.usage.completionTokens);
    metrics.chatCost.inc(labels, o.cost);
    const recorded = writeUsage(this.deps, ctx, chatUsageEvent(o, ctx, body, new Date(this.deps.clock())));
    this.track(recorded);
    return recorded;
  }

  /** Count `work` as unfinished bookkeeping until it settles (shutdown waits, {@link drain}). */
  track(work: Promise<unknown>): void {
    this.pending.track(work);
  }

  /** Wait until every answered request's bookkeeping has finished. */
  drain(): Promise<void> {
    return this.pending.drain();
  }

}
