/**
 * The chat-like service, one for every door (chat completions, Messages, Responses): plans a
 * request (models, candidates, worst case), runs the fallback runner over the chat adapters, whole
 * or streamed, then counts the cost, records usage and has the door write the answer. Route
 * handlers call only this; a door ({@link Door}) only reads its body and writes its shape.
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { InferenceServiceDeps } from '../inference/service-deps';
import type { Endpoint } from '../catalog/types';
import type { CallerContext } from '../inference/caller';
import { generationId } from '../embeddings/ids';
import { chatAdapterFor } from '../providers/chat-registry';
import type { ChatJob, StreamHead } from '../providers/chat-types';
import type { AttemptResult } from '../routing/run-with-fallback';
import type { RoutingState } from '../routing/state';
import { SessionAffinity, type SessionPin } from '../routing/session-affinity';
import type { AttemptRunner, InjectTrace, RunSpec } from '../inference/attempt-runner';
import { SseWriter } from '../inference/sse-writer';
import { withPooledKey } from '../inference/upstream-request';
import { attemptStream, type LiveStream, type StreamEnd, type StreamTiming } from '../inference/stream-attempt';
import { PendingWork } from '../usage/pending-work';
import { billChat } from './billed';
import { planChat, type ChatPlan } from './plan';
import { writeUsage } from '../usage/write';
import { chatUsageEvent, type ChatOutcome } from './record';
import { observeAnswer, type AnswerObservers } from '../inference/observers';
import { wholeBody } from '../providers/raw-json';
import { countTokens } from '../usage/tokens';
import type { Door, DoorAnswer, DoorStream } from '../inference/door';

type ServiceDeps = InferenceServiceDeps;

/** A whole answer, ready to send. */
export interface ChatAnswer {
  id: string;
  body: string;
  costUsd: number;
  /** The prompt's tokens as billed. */
  promptTokens: number;
  /** Settles once the usage record is durable (never rejects). */
  recorded: Promise<void>;
}

/** The native finish reason recorded for a stream its client ended. */
const CLIENT_ENDS: Partial<Record<StreamEnd['kind'], string>> = {
  client_left: 'client_disconnected',
  client_stalled: 'client_stopped_reading',
};

/** What every attempt of one streamed request shares. */
interface OneStream {
  door: Pick<Door<never>, 'view'>;
  writer: SseWriter;
  job: ChatJob;
  /** The generation id every chunk carries. */
  id: string;
  /** Unix seconds, for every chunk. */
  created: number;
  timing: StreamTiming;
}

/** What the service knows of one request: its door, its validated body, its plan and its session's pin. */
interface Asked<B> {
  door: Door<B>;
  ctx: CallerContext;
  body: B;
  /** With the session's endpoint first, when it has one. */
  plan: ChatPlan;
  pin: SessionPin | null;
}

/** One per app instance. */
export class ChatService {
  /** Settles and usage records of answered requests still running ({@link drain}). */
  private readonly pending = new PendingWork();

  constructor(
    private readonly deps: ServiceDeps,
    private readonly routing: RoutingState,
    private readonly runner: AttemptRunner,
    private readonly observers: AnswerObservers,
  ) {}

  /** The first half of a door's request (see `plan.ts`). */
  plan<B>(door: Door<B>, body: B): ChatPlan {
    return planChat(this.routing.catalog, door.planInput(body), this.deps.random);
  }

  /**
   * The second half: answer the planned request on `res` in the door's shape, whole or streamed;
   * resolves with what it cost once the answer is over (0 when it failed mid-stream).
   * Throws a GatewayError (the door's error answer) only while nothing has been sent.
   */
  async answer<B>(door: Door<B>, ctx: CallerContext, body: B, plan: ChatPlan, res: ServerResponse): Promise<number> {
    // Sticky sessions: one Kv read for a request with a session, nothing for one without.
    const lookup = plan.explicitOrder
      ? null
      : this.routing.affinity.lookup(ctx.key, door.sessionId(body) ?? ctx.sessionHeader, plan.primary.id);
    const pin = lookup && (await lookup);
    const candidates = SessionAffinity.ordered(plan.candidates, pin);
    const ordered = candidates === plan.candidates ? plan : { ...plan, candidates };
    const asked: Asked<B> = { door, ctx, body, plan: ordered, pin };
    if (plan.stream) return this.stream(asked, res);
    const answer = await this.complete(asked);
    // If so configured, a client never holds an answer whose usage record a crash could lose.
    if (this.deps.config.usage.answerAfterRecord) await answer.recorded;
    this.observe(asked, res, answer.id, answer.promptTokens);
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(answer.body)),
      'X-Generation-Id': answer.id,
    });
    res.end(answer.body);
    return answer.costUsd;
  }

  /** The rankings sampler and the workspace classifiers look at the user's texts once the answer is sent; `tokens` is the prompt as billed. */
  private observe(asked: Asked<unknown>, res: ServerResponse, generationId: string, tokens: number): void {
    const { userTexts } = asked.plan.prompt;
    if (userTexts.length === 0) return;
    observeAnswer(this.observers, res, asked.ctx, {
      generationId,
      model: asked.plan.requested,
      input: userTexts,
      tokens,
      createdAt: new Date(this.deps.clock()),
    });
  }

  /** A whole (non-streamed) answer. Throws a GatewayError when no attempt succeeded. */
  private async complete<B>(asked: Asked<B>): Promise<ChatAnswer> {
    const { door, ctx, body, plan } = asked;
    const job = door.job(body, plan.maxTokens, false);
    const run = await this.runner.runOrThrow(ctx, this.spec(plan), (e, timeoutMs, inject) =>
      this.callWhole(door, e, job, timeoutMs, inject),
    );
    const { value: parsed, endpoint } = run;
    this.stick(asked, endpoint);
    this.runner.observeOverhead(door.route, ctx, run.upstreamMs);
    const { usage, estimated, cost } = billChat(this.deps, ctx.requestId, plan, endpoint, parsed.usage, () =>
      countTokens([parsed.text()]),
    );
    const head = this.head(endpoint, generationId(this.deps.clock(), 'gen'));
    const totalMs = this.since(ctx);
    const recorded = this.record(asked, {
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
    return {
      id: head.id,
      body: parsed.render(head, usage, cost),
      costUsd: cost,
      promptTokens: usage.promptTokens,
      recorded,
    };
  }

  /**
   * A streamed answer, written to `res` as it arrives. Resolves with what it cost once the stream
   * is over. Throws a GatewayError (the door's error answer) only while nothing has been sent.
   */
  private async stream<B>(asked: Asked<B>, res: ServerResponse): Promise<number> {
    const { door, ctx, body, plan } = asked;
    const { config } = this.deps;
    const id = generationId(this.deps.clock(), 'gen');
    const created = this.created();
    const writer = new SseWriter(res, { 'X-Generation-Id': id });
    const stream: OneStream = {
      door,
      writer,
      job: door.job(body, plan.maxTokens, true),
      id,
      created,
      timing: {
        idleTimeoutMs: config.chat.streamIdleTimeoutMs,
        keepAliveMs: config.chat.keepAliveMs,
        maxBytes: config.chat.streamMaxBytes,
        maxMs: config.chat.streamMaxMs,
      },
    };
    const run = await this.runner.run(ctx, this.spec(plan), (e, timeoutMs, inject) =>
      this.attemptStream(stream, e, timeoutMs, inject),
    );
    if (!run.ok) {
      if (!writer.opened) throw run.error;
      const head = { id, model: plan.primary.id, provider: run.lastEndpoint?.provider.name ?? '', created };
      writer.finish(door.failed(head, run.error.status, run.error.message));
      return 0;
    }
    const live = run.value;
    this.stick(asked, live.endpoint);
    this.runner.observeOverhead(door.route, ctx, run.upstreamMs);
    const end = await live.ended;
    const ttftMs = this.since(ctx) - (performance.now() - live.firstContentAt);
    const summary = live.translator.summary();
    const { usage, estimated, cost } = billChat(this.deps, ctx.requestId, plan, live.endpoint, summary.usage, () =>
      summary.generatedTokens(),
    );
    const head = this.head(live.endpoint, id);
    this.deps.metrics.chatStreamEnds.inc({ outcome: end.kind });
    this.deps.metrics.chatTimeToFirstToken.observe(
      { provider: live.endpoint.provider.slug, model: live.endpoint.modelId },
      ttftMs / 1000,
    );
    const recorded = this.record(asked, {
      id,
      endpoint: live.endpoint,
      usage,
      cost,
      estimated,
      streamed: true,
      finishReason: end.kind === 'upstream_error' ? 'error' : summary.finishReason,
      nativeFinishReason: CLIENT_ENDS[end.kind] ?? summary.nativeFinishReason,
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
    this.observe(asked, res, id, usage.promptTokens);
    const translator = live.translator;
    writer.finish(
      end.kind === 'upstream_error'
        ? translator.fail(head, end.code, end.message)
        : translator.finish(head, usage, cost),
    );
    return cost;
  }

  /** Point the request's session at the endpoint that answered it, without delaying the answer. */
  private stick(asked: Asked<unknown>, endpoint: Endpoint): void {
    if (!asked.pin) return;
    const write = this.routing.affinity.remember(asked.pin, endpoint);
    if (write) this.track(write);
  }

  /** What the runner tries for `plan`. */
  private spec<T>(plan: ChatPlan): RunSpec<T> {
    return { operation: 'chat', model: plan.primary, candidates: plan.candidates };
  }

  /** One streamed attempt on `endpoint`, its events translated to chat chunks carrying the gateway's id. */
  private attemptStream(
    s: OneStream,
    endpoint: Endpoint,
    timeoutMs: number,
    inject: InjectTrace | undefined,
  ): Promise<AttemptResult<LiveStream<DoorStream>>> {
    const adapter = chatAdapterFor(endpoint.provider.adapter);
    const head = { id: s.id, model: endpoint.modelId, provider: endpoint.provider.name, created: s.created };
    const translator = () => s.door.view(adapter).stream(head, s.job);
    const build = (key: string | null) => adapter.buildRequest(s.job, endpoint, key);
    return withPooledKey(this.routing.keys, adapter, endpoint, build, inject, (req) =>
      attemptStream(this.routing.http, s.writer, { req, signal: adapter, endpoint, translator }, timeoutMs, s.timing),
    );
  }

  private callWhole(
    door: Door<never>,
    endpoint: Endpoint,
    job: ChatJob,
    timeoutMs: number,
    inject: InjectTrace | undefined,
  ): Promise<AttemptResult<DoorAnswer>> {
    const adapter = chatAdapterFor(endpoint.provider.adapter);
    const maxBodyBytes = this.deps.config.chat.maxAnswerBytes;
    const build = (key: string | null) => ({ ...adapter.buildRequest(job, endpoint, key), maxBodyBytes });
    return withPooledKey(this.routing.keys, adapter, endpoint, build, inject, async (req) => {
      const res = await this.routing.http.post(req, adapter, timeoutMs);
      if (res.outcome !== 'ok') return res;
      const parsed = door.view(adapter).parse(wholeBody(res.body), job);
      if (!parsed) return { outcome: 'server', status: res.status, reason: 'invalid chat completion body' };
      return { outcome: 'ok', value: parsed, upstreamMs: res.elapsedMs };
    });
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
  private record<B>(asked: Asked<B>, o: ChatOutcome): Promise<void> {
    const { door, ctx, body } = asked;
    const { metrics } = this.deps;
    const labels = { provider: o.endpoint.provider.slug, model: o.endpoint.modelId };
    metrics.chatTokens.inc({ ...labels, kind: 'prompt' }, o.usage.promptTokens);
    metrics.chatTokens.inc({ ...labels, kind: 'completion' }, o.usage.completionTokens);
    metrics.chatCost.inc(labels, o.cost);
    const who = {
      api: door.api,
      endUser: door.endUser(body),
      sessionId: door.sessionId(body),
      routingVariant: asked.plan.variants.get(o.endpoint.id) ?? null,
    };
    const recorded = writeUsage(this.deps, ctx, chatUsageEvent(o, ctx, who, new Date(this.deps.clock())));
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
