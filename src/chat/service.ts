/**
 * The chat-like service, one for every door (chat completions, Messages, Responses): plans a
 * request (models, candidates, worst case), runs the fallback runner over the chat adapters, whole
 * or streamed, then counts the cost, records usage and has the door write the answer. Route
 * handlers call only this; a door ({@link Door}) only reads its body and writes its shape.
 *
 * Under a limit, a sliced plan's answer is metered (budgets/slices.ts): a stream asks for the next
 * slice as it grows and ends as the door's length stop when one is refused; a whole answer is read
 * from the upstream as a stream for the same reason and assembled by its door before it is sent.
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
import { SseWriter, type StreamSink } from '../inference/sse-writer';
import { GatheredStream } from '../inference/gathered-stream';
import { SliceMeter } from '../inference/slice-meter';
import type { RunSuccess } from '../inference/attempt-runner';
import { BUDGET_NATIVE_STOP, type SliceBudget } from '../budgets/slices';
import { withPooledKey } from '../inference/upstream-request';
import { releaseRawMembers } from '../http/raw-json-body';
import type { UpstreamRequest } from '../transport/outcome';
import {
  attemptStream,
  type LiveStream,
  type StreamEnd,
  type StreamMetering,
  type StreamTiming,
} from '../inference/stream-attempt';
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
  writer: StreamSink;
  job: ChatJob;
  /** The generation id every chunk carries. */
  id: string;
  /** Unix seconds, for every chunk. */
  created: number;
  timing: StreamTiming;
  metering: StreamMetering;
}

/** A live stream billed and recorded: what its closing events and its answer need. */
interface BilledStream {
  end: StreamEnd;
  head: StreamHead;
  live: LiveStream<DoorStream>;
  usage: ChatOutcome['usage'];
  cost: number;
  recorded: Promise<void>;
}

/** What the service knows of one request: its door, its validated body, its plan and its session's pin. */
interface Asked<B> {
  door: Door<B>;
  ctx: CallerContext;
  body: B;
  /** With the session's endpoint first, when it has one. */
  plan: ChatPlan;
  pin: SessionPin | null;
  /** The request's slices, when its answer is metered. */
  budget?: SliceBudget;
}

/**
 * An attempt's request is built: the door's body gives up its large members, which the request
 * now holds as the client's bytes (`releaseRawMembers`), so they are garbage while the upstream answers.
 */
function sent(req: UpstreamRequest, job: ChatJob): UpstreamRequest {
  if (job.native) releaseRawMembers(job.native.body);
  return req;
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

  /** The first half of a door's request (see `plan.ts`); sliced when the door can meter its answers. */
  plan<B>(door: Door<B>, body: B): ChatPlan {
    const metered = door.assemble !== undefined && door.meters?.(body) !== false;
    const sliceTokens = metered ? this.deps.config.budgets.sliceTokens : 0;
    return planChat(this.routing.catalog, { ...door.planInput(body), sliceTokens }, this.deps.random);
  }

  /**
   * The second half: answer the planned request on `res` in the door's shape, whole or streamed;
   * resolves with what it cost once the answer is over (0 when it failed mid-stream).
   * Throws a GatewayError (the door's error answer) only while nothing has been sent. With
   * `budget` (a sliced plan under a limit) the answer is metered slice by slice.
   */
  async answer<B>(
    door: Door<B>,
    ctx: CallerContext,
    body: B,
    plan: ChatPlan,
    res: ServerResponse,
    budget?: SliceBudget,
  ): Promise<number> {
    // Sticky sessions: one Kv read for a request with a session, nothing for one without.
    const lookup = plan.explicitOrder
      ? null
      : this.routing.affinity.lookup(ctx.key, door.sessionId(body) ?? ctx.sessionHeader, plan.primary.id);
    const pin = lookup && (await lookup);
    const candidates = SessionAffinity.ordered(plan.candidates, pin);
    const ordered = candidates === plan.candidates ? plan : { ...plan, candidates };
    const meter = budget && plan.slice && door.assemble ? new SliceMeter(budget, plan.slice) : undefined;
    const asked: Asked<B> = { door, ctx, body, plan: ordered, pin, budget };
    if (plan.stream) return this.stream(asked, res, meter);
    const answer = meter ? await this.gathered(asked, res, meter) : await this.complete(asked);
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
    const { usage, estimated, cost } = billChat(
      this.deps,
      ctx.requestId,
      plan,
      endpoint,
      parsed.usage,
      () => countTokens([parsed.text()]),
      plan.worstUsd,
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
   * A streamed answer, written to `res` as it arrives (metered by `meter`, when given). Resolves
   * with what it cost once the stream is over. Throws a GatewayError (the door's error answer) only
   * while nothing has been sent.
   */
  private async stream<B>(asked: Asked<B>, res: ServerResponse, meter?: SliceMeter): Promise<number> {
    const { door, ctx, plan } = asked;
    const id = generationId(this.deps.clock(), 'gen');
    const created = this.created();
    const writer = new SseWriter(res, { 'X-Generation-Id': id });
    const stream = this.oneStream(asked, writer, id, created, { meter });
    const run = await this.runner.run(ctx, this.spec(plan), (e, timeoutMs, inject) =>
      this.attemptStream(stream, e, timeoutMs, inject),
    );
    if (!run.ok) {
      if (!writer.opened) throw run.error;
      const head = { id, model: plan.primary.id, provider: run.lastEndpoint?.provider.name ?? '', created };
      writer.finish(door.failed(head, run.error.status, run.error.message));
      return 0;
    }
    const billed = await this.billLive(asked, run, id, true);
    const whole = billed.end.kind === 'done' || billed.end.kind === 'budget_cut';
    if (this.deps.config.usage.answerAfterRecord && whole) await billed.recorded;
    this.observe(asked, res, id, billed.usage.promptTokens);
    writer.finish(this.closing(billed));
    return billed.cost;
  }

  /**
   * A whole answer read from the upstream as a stream metered by `meter`, then assembled by its
   * door (see the module comment). Throws a GatewayError when no attempt succeeded.
   */
  private async gathered<B>(asked: Asked<B>, res: ServerResponse, meter: SliceMeter): Promise<ChatAnswer> {
    const { door, ctx, plan } = asked;
    const id = generationId(this.deps.clock(), 'gen');
    const sink = new GatheredStream(res);
    const stream = this.oneStream(asked, sink, id, this.created(), { meter, whole: true });
    const run = await this.runner.runOrThrow(ctx, this.spec(plan), (e, timeoutMs, inject) =>
      this.attemptStream(stream, e, timeoutMs, inject),
    );
    const billed = await this.billLive(asked, run, id, false);
    const { usage, cost, recorded } = billed;
    const events = sink.text(this.closing(billed));
    // Gathered only for a door that assembles (see `answer`).
    const body = door.assemble ? door.assemble(events, billed.head) : events;
    return { id, body, costUsd: cost, promptTokens: usage.promptTokens, recorded };
  }

  /** What every attempt of one streamed (or gathered) request shares. */
  private oneStream<B>(
    asked: Asked<B>,
    writer: StreamSink,
    id: string,
    created: number,
    metering: StreamMetering,
  ): OneStream {
    const { chat } = this.deps.config;
    const job = asked.door.job(asked.body, asked.plan.maxTokens, true);
    const timing = {
      idleTimeoutMs: chat.streamIdleTimeoutMs,
      keepAliveMs: chat.keepAliveMs,
      maxBytes: chat.streamMaxBytes,
      maxMs: chat.streamMaxMs,
    };
    return { door: asked.door, writer, job, id, created, timing, metering };
  }

  /** The door's closing events of a billed stream: its error, its length stop for a budget cut, or its end. */
  private closing({ end, head, live, usage, cost }: BilledStream): string {
    const t = live.translator;
    if (end.kind === 'upstream_error') return t.fail(head, end.code, end.message);
    if (end.kind === 'budget_cut' && t.cut) return t.cut(head, usage, cost);
    return t.finish(head, usage, cost);
  }

  /** Wait for a live stream's end, then bill it (capped at what its budget held) and record it. */
  private async billLive<B>(
    asked: Asked<B>,
    run: RunSuccess<LiveStream<DoorStream>>,
    id: string,
    streamed: boolean,
  ): Promise<BilledStream> {
    const { door, ctx, plan } = asked;
    const live = run.value;
    this.stick(asked, live.endpoint);
    this.runner.observeOverhead(door.route, ctx, run.upstreamMs);
    const end = await live.ended;
    const ttftMs = this.since(ctx) - (performance.now() - live.firstContentAt);
    const summary = live.translator.summary();
    const held = asked.budget?.heldUsd ?? plan.worstUsd;
    const { usage, estimated, cost } = billChat(
      this.deps,
      ctx.requestId,
      plan,
      live.endpoint,
      summary.usage,
      () => summary.generatedTokens(),
      held,
    );
    const labels = { provider: live.endpoint.provider.slug, model: live.endpoint.modelId };
    if (streamed) {
      this.deps.metrics.chatStreamEnds.inc({ outcome: end.kind });
      this.deps.metrics.chatTimeToFirstToken.observe(labels, ttftMs / 1000);
    }
    const failed = end.kind === 'upstream_error';
    const cut = end.kind === 'budget_cut';
    const recorded = this.record(asked, {
      id,
      endpoint: live.endpoint,
      usage,
      cost,
      estimated,
      streamed,
      finishReason: failed ? 'error' : cut ? 'length' : summary.finishReason,
      nativeFinishReason: cut ? BUDGET_NATIVE_STOP : (CLIENT_ENDS[end.kind] ?? summary.nativeFinishReason),
      toolCalls: summary.toolCalls,
      upstreamId: summary.upstreamId,
      ttftMs,
      totalMs: this.since(ctx),
      generationMs: performance.now() - live.attemptStart,
      attempts: run.attempts.length,
      modalityLabel: plan.prompt.modalityLabel,
      status: failed ? 'error' : 'ok',
    });
    return { end, head: this.head(live.endpoint, id), live, usage, cost, recorded };
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
    // The view before the request: a door's view may read the body, which gives up its members once sent.
    const view = s.door.view(adapter, endpoint);
    const translator = () => view.stream(head, s.job);
    const build = (key: string | null) => sent(adapter.buildRequest(s.job, endpoint, key), s.job);
    return withPooledKey(this.routing.keys, adapter, endpoint, build, inject, (req) =>
      attemptStream(
        this.routing.http,
        s.writer,
        { req, signal: adapter, endpoint, translator },
        timeoutMs,
        s.timing,
        s.metering,
      ),
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
    const view = door.view(adapter, endpoint); // before the request is built, as in attemptStream
    const build = (key: string | null) => ({ ...sent(adapter.buildRequest(job, endpoint, key), job), maxBodyBytes });
    return withPooledKey(this.routing.keys, adapter, endpoint, build, inject, async (req) => {
      const res = await this.routing.http.post(req, adapter, timeoutMs);
      if (res.outcome !== 'ok') return res;
      const parsed = view.parse(wholeBody(res.body), job);
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
