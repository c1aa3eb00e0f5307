/**
 * The embeddings service: resolve the model, normalise the input, select candidates, reserve
 * spend, run the fallback loop over the provider adapters, then settle the cost, record usage
 * and serialise the response. Route handlers call only this.
 * @module
 */
import { withPooledKey } from '../inference/upstream-request';
import type { CatalogModel, Endpoint, RoutableParameter } from '../catalog/types';
import type { InferenceServiceDeps } from '../inference/service-deps';
import type { EmbeddingsCache } from './cache/cache';
import { embeddingsAdapterFor } from '../providers/embeddings-registry';
import type { EmbeddingJob, EmbeddingsAdapter, ParsedEmbeddings, Vector } from '../providers/embeddings-types';
import { commonLength, vectorLength } from '../providers/vectors';
import { UpstreamError } from '../errors';
import { inputCount, joinParts, splitJob } from './batches';
import { noCandidates } from '../routing/availability';
import type { AttemptResult } from '../routing/run-with-fallback';
import type { RoutingState } from '../routing/state';
import type { AttemptRunner, InjectTrace, RunSpec } from '../inference/attempt-runner';
import { observeAnswer, type AnswerObservers } from '../inference/observers';
import type { ServerResponse } from 'node:http';
import { selectCandidates } from '../routing/select-candidates';
import { writeUsage } from '../usage/write';
import { embeddingsUsageEvent, type EmbeddingsOutcome } from './record';
import { countTokens } from '../usage/tokens';
import { PendingWork } from '../usage/pending-work';
import { generationId } from './ids';
import { chargedUsage, normaliseInput, textsToCount, tokenBoundOn, tokenIdCount, type NormalisedInput } from './input';
import { billedCost } from '../usage/bill';
import { embeddingsResponseBody } from './response';
import { listEmbeddingModels, type ModelsQuery } from '../catalog/models-list';
import { roundUsd } from '../catalog/usd';
import type { CallerContext } from '../inference/caller';
import type { EmbeddingsAnswer, EmbeddingsBody, EmbeddingsPlan } from './types';
import { cacheStatus, joinVectors, pickInputs, savings, writesFor, type CachePlan } from './cache/plan';
import { staleHits, withStaleAsMisses } from './cache/stale-hits';
import { withCacheLookup, type CacheCaller } from './cache/lookup-plan';

/** The embeddings service also reads the per-input cache (absent in tests that build it bare). */
type ServiceDeps = InferenceServiceDeps & { embeddingsCache?: EmbeddingsCache };

/** The route label of the gateway-overhead metric. */
const ROUTE = '/api/v1/embeddings';

/** USD for `tokens` prompt tokens and `images` images on `endpoint`, plus its per-request price. */
export function costOf(endpoint: Endpoint, tokens: number, images: number): number {
  const p = endpoint.pricing;
  return roundUsd(tokens * p.prompt + images * p.image + p.request);
}

/** The most `norm` can cost on any of `candidates` (USD): what the budget step reserves. */
function estimateOf(norm: NormalisedInput, candidates: readonly Endpoint[]): number {
  return Math.max(...candidates.map((e) => costOf(e, tokenBoundOn(norm, e.contextLength), norm.images)));
}

/**
 * Whether every vector of an answer has one length, and the `dimensions` asked for when the
 * endpoint honours them: a cached entry is keyed by `dimensions`, so an answer of another length
 * would be served to requests that asked for that many.
 */
function hasLength(vectors: readonly Vector[], job: EmbeddingJob, endpoint: Endpoint): boolean {
  const length = commonLength(vectors);
  return (
    length > 0 && (job.dimensions === undefined || !endpoint.parameters.has('dimensions') || length === job.dimensions)
  );
}

/** An upstream answer with what it took, the plan's cache part and the input it billed for. */
interface Answered {
  cache: CachePlan | undefined;
  /** The inputs sent upstream (the misses, when the cache is on). */
  norm: NormalisedInput;
  parsed: ParsedEmbeddings;
  upstreamMs: number;
  attempts: number;
}

/** One per app instance; stateless per request apart from the shared connection pool. */
export class EmbeddingsService {
  /** Settles and usage records of answered requests still running ({@link drain}). */
  private readonly pending = new PendingWork();

  /** @param deps - the app's deps (frozen: built once, never swapped) */
  constructor(
    private readonly deps: ServiceDeps,
    private readonly routing: RoutingState,
    private readonly runner: AttemptRunner,
    private readonly observers: AnswerObservers,
  ) {}

  /**
   * The second half of POST /embeddings: answer the planned request on `res` and resolve with what
   * it cost. Work that follows the sent answer never delays it: the cache stores the misses, a
   * sample is classified for the rankings, and the workspace's classifiers tag it.
   * Throws a GatewayError when no attempt succeeded.
   */
  async answer(ctx: CallerContext, body: EmbeddingsBody, plan: EmbeddingsPlan, res: ServerResponse): Promise<number> {
    const answer = await this.create(ctx, body, plan);
    // If so configured, a client never holds an answer whose usage record a crash could lose.
    if (this.deps.config.usage.answerAfterRecord) await answer.recorded;
    const headers: Record<string, string> = {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(answer.body.length),
    };
    if (answer.cacheStatus) headers['X-Switchyard-Cache'] = answer.cacheStatus;
    res.writeHead(200, headers);
    if (answer.afterSend) res.once('finish', answer.afterSend);
    const observed = {
      model: body.model,
      input: body.input,
      tokens: answer.promptTokens,
      createdAt: new Date(this.deps.clock()),
    };
    if (answer.body.id) observeAnswer(this.observers, res, ctx, { generationId: answer.body.id, ...observed });
    else
      this.observers.rankings.sampler.offer(res, {
        orgId: ctx.key.orgId,
        model: body.model,
        input: body.input,
        tokens: answer.promptTokens,
      });
    // One write for the chunks of the answer (vectors are passed through as byte slices).
    res.cork();
    for (const chunk of answer.body.chunks) res.write(chunk);
    res.end();
    return answer.costUsd;
  }

  /** GET /embeddings/models. */
  listModels(q: ModelsQuery) {
    return listEmbeddingModels(this.routing.catalog.embeddingsModels, q);
  }

  /**
   * The first half of POST /embeddings, before any spend is reserved: the model, the normalised
   * input, the endpoints that may serve it (in order) and the most the request can cost, which
   * the budget step reserves. With the cache on for `caller`, each input is looked up first, and
   * the plan's input and estimate cover only the misses (nothing, when every input was found).
   * Throws a GatewayError (404 unknown model, no eligible endpoint).
   */
  async plan(body: EmbeddingsBody, caller?: CacheCaller): Promise<EmbeddingsPlan> {
    const model = this.routing.catalog.resolveEmbeddings(body.model);
    const norm = normaliseInput(body.input);
    const parameters = new Set<RoutableParameter>();
    if (body.dimensions !== undefined) parameters.add('dimensions');
    if (body.input_type !== undefined) parameters.add('input_type');
    const needs = { inputKind: norm.input.kind, modalities: norm.modalities, parameters };
    const candidates = selectCandidates(model, needs, body.provider, this.deps.random);
    if (candidates.length === 0) throw noCandidates(model, needs, body.provider);
    const plan: EmbeddingsPlan = {
      model: model.id,
      primary: model,
      norm,
      candidates,
      estimateUsd: estimateOf(norm, candidates),
      modalityLabel: norm.modalityLabel,
    };
    const cache = this.deps.embeddingsCache;
    if (!cache || !caller) return plan;
    return withCacheLookup(cache, this.deps.config.embeddingsCache.scope, plan, body, caller, (misses) =>
      estimateOf(misses, candidates),
    );
  }

  /** The answer when every input was found: no upstream call, cost 0, the tokens counted as cached. */
  private fromCache(
    ctx: CallerContext,
    body: EmbeddingsBody,
    plan: EmbeddingsPlan,
    cache: CachePlan,
  ): EmbeddingsAnswer {
    const endpoint = (cache.hits[0] as NonNullable<CachePlan['hits'][number]>).endpoint;
    const saved = savings(cache);
    const id = generationId(this.deps.clock());
    const json = embeddingsResponseBody({
      id,
      model: plan.model,
      providerName: endpoint.provider.name,
      vectors: joinVectors(cache, []),
      encoding: body.encoding_format ?? 'float',
      promptTokens: saved.tokens,
      cost: 0,
      cachedTokens: saved.tokens,
      cached: true,
    });
    const totalMs = Number(process.hrtime.bigint() - ctx.startedAt) / 1e6;
    this.runner.observeOverhead(ROUTE, ctx, 0);
    this.countSavings(plan.model, saved);
    const usage = {
      tokens: saved.tokens,
      cachedTokens: saved.tokens,
      savedUsd: saved.usd,
      cost: 0,
      upstreamMs: 0,
      attempts: 0,
    };
    const recorded = this.record({
      id,
      ctx,
      body,
      model: plan.model,
      endpoint,
      ...usage,
      totalMs,
      modalityLabel: plan.modalityLabel,
      upstreamId: null,
    });
    this.track(recorded);
    return { body: json, costUsd: 0, promptTokens: saved.tokens, cacheStatus: 'HIT', recorded };
  }

  /**
   * The second half: the fallback runner over the plan's candidates, the answer's body, what it
   * cost, and `recorded`: settles once the usage record is durable (never rejects; a failed record
   * is logged). The caller sends the body at once or after `recorded` (`usage.answerAfterRecord`).
   * Throws a GatewayError when no attempt succeeded.
   */
  private async create(ctx: CallerContext, body: EmbeddingsBody, plan: EmbeddingsPlan): Promise<EmbeddingsAnswer> {
    const { metrics } = this.deps;
    const { model, candidates } = plan;
    if (plan.cache && plan.cache.misses.length === 0) return this.fromCache(ctx, body, plan, plan.cache);
    const job: EmbeddingJob = {
      input: plan.norm.input,
      dimensions: body.dimensions,
      inputType: body.input_type,
      user: body.user,
      encoding: body.encoding_format ?? 'float',
    };
    const run = await this.run(ctx, plan.primary, candidates, job);
    const { endpoint } = run;
    const answered = {
      cache: plan.cache,
      norm: plan.norm,
      parsed: run.value,
      upstreamMs: run.upstreamMs,
      attempts: run.attempts.length,
    };
    const { cache, norm, parsed, upstreamMs, attempts } = await this.withFreshHits(
      ctx,
      plan.primary,
      answered,
      endpoint,
      job,
    );
    const { tokens, images, estimated, replaced } = chargedUsage(parsed, norm, endpoint.contextLength, () =>
      this.countTokens(norm),
    );
    const cost = billedCost(
      this.deps,
      { api: 'embeddings', endpoint, requestId: ctx.requestId, replaced },
      costOf(endpoint, tokens, images),
      plan.estimateUsd,
    );
    const id = generationId(this.deps.clock());
    const saved = cache ? savings(cache) : { tokens: 0, usd: 0 };
    const json = embeddingsResponseBody({
      id,
      model,
      providerName: endpoint.provider.name,
      vectors: cache ? joinVectors(cache, parsed.vectors) : parsed.vectors,
      encoding: job.encoding,
      promptTokens: tokens + saved.tokens,
      cost,
      cachedTokens: cache ? saved.tokens : undefined,
    });
    const labels = { provider: endpoint.provider.slug, model };
    metrics.embeddingTokens.inc(labels, tokens);
    metrics.embeddingCost.inc(labels, cost);
    const totalMs = Number(process.hrtime.bigint() - ctx.startedAt) / 1e6;
    this.runner.observeOverhead(ROUTE, ctx, upstreamMs);
    if (cache) this.countSavings(model, saved);
    const usage = {
      tokens: tokens + saved.tokens,
      cachedTokens: saved.tokens,
      savedUsd: saved.usd,
      cost,
      upstreamMs,
      attempts,
      estimated,
    };
    // Shutdown waits for the usage record; the answer does if so configured (see the route).
    const recorded = this.record({
      id,
      ctx,
      body,
      model,
      endpoint,
      ...usage,
      totalMs,
      modalityLabel: plan.modalityLabel,
      upstreamId: parsed.upstreamId,
    });
    this.track(recorded);
    const store = this.deps.embeddingsCache;
    // Stored once the answer is sent (the route runs this on 'finish'), never before.
    const afterSend =
      cache?.write && store ? () => store.write(writesFor(cache, parsed.vectors, tokens), endpoint) : undefined;
    return {
      body: json,
      costUsd: cost,
      promptTokens: usage.tokens,
      cacheStatus: cache ? cacheStatus(cache) : undefined,
      afterSend,
      recorded,
    };
  }

  /** The runner over `candidates` for `job`: the successful run, else it throws the final error. */
  private run(ctx: CallerContext, model: CatalogModel, candidates: readonly Endpoint[], job: EmbeddingJob) {
    const spec: RunSpec<ParsedEmbeddings> = { operation: 'embeddings', model, candidates, inputTokens: promptTokensOf };
    return this.runner.runOrThrow(ctx, spec, (e, timeoutMs, inject) => this.attempt(e, job, timeoutMs, inject));
  }

  /**
   * The answer made one length with the plan's hits: hits whose length differs from the
   * upstream's vectors are embedded again on the endpoint that answered, and become misses
   * (`cache/stale-hits.ts`).
   * @throws GatewayError (502 when the second answer disagrees too) rather than mix lengths
   */
  private async withFreshHits(
    ctx: CallerContext,
    model: CatalogModel,
    a: Answered,
    endpoint: Endpoint,
    job: EmbeddingJob,
  ): Promise<Answered> {
    const { cache } = a;
    const length = vectorLength(a.parsed.vectors[0] as Vector);
    const stale = cache ? staleHits(cache, length) : [];
    if (!cache || stale.length === 0) return a;
    const again = await this.run(ctx, model, [endpoint], {
      ...job,
      input: normaliseInput(pickInputs(cache.full, stale)).input,
    });
    if (commonLength(again.value.vectors) !== length) {
      const attempts = again.attempts.map(({ provider, status }) => ({ provider, outcome: 'server', status }));
      throw new UpstreamError({ provider_name: endpoint.provider.name, attempts });
    }
    const merged = withStaleAsMisses(cache, stale, a.parsed.vectors, again.value.vectors);
    return {
      cache: merged.plan,
      norm: normaliseInput(pickInputs(cache.full, merged.plan.misses)),
      parsed: { ...joinParts([a.parsed, again.value]), vectors: merged.upstream },
      upstreamMs: a.upstreamMs + again.upstreamMs,
      attempts: a.attempts + again.attempts.length,
    };
  }

  /** What the cache saved on one answer, for Prometheus. */
  private countSavings(model: string, saved: { tokens: number; usd: number }): void {
    if (saved.tokens === 0 && saved.usd === 0) return;
    this.deps.metrics.embeddingsCacheSavedTokens.inc({ model }, saved.tokens);
    this.deps.metrics.embeddingsCacheSavedUsd.inc({ model }, saved.usd);
  }

  /** Count `work` (a settle, a usage record) until it ends, so {@link drain} waits for it. */
  track(work: Promise<unknown>): void {
    this.pending.track(work);
  }

  /** Wait until every answered request's bookkeeping (settle, usage record) has finished. */
  drain(): Promise<void> {
    return this.pending.drain();
  }

  private countTokens(norm: NormalisedInput): number {
    return norm.input.kind === 'tokens' ? tokenIdCount(norm.input) : countTokens(textsToCount(norm.input));
  }

  /**
   * One attempt on `endpoint`: one upstream call, or parallel calls when the job exceeds its batch
   * limit. Not async: the usual single call's promise is returned as it is, not wrapped in another.
   */
  private attempt(
    endpoint: Endpoint,
    job: EmbeddingJob,
    timeoutMs: number,
    inject: InjectTrace | undefined,
  ): Promise<AttemptResult<ParsedEmbeddings>> {
    const adapter = embeddingsAdapterFor(endpoint.provider.adapter);
    const chunks = splitJob(job, adapter.maxBatch);
    return chunks.length === 1
      ? this.call(adapter, endpoint, job, timeoutMs, inject)
      : this.attemptInParts(adapter, endpoint, chunks, timeoutMs, inject);
  }

  private async attemptInParts(
    adapter: EmbeddingsAdapter,
    endpoint: Endpoint,
    chunks: EmbeddingJob[],
    timeoutMs: number,
    inject?: InjectTrace,
  ): Promise<AttemptResult<ParsedEmbeddings>> {
    const results = await Promise.all(chunks.map((chunk) => this.call(adapter, endpoint, chunk, timeoutMs, inject)));
    const parts: ParsedEmbeddings[] = [];
    let upstreamMs = 0;
    for (const r of results) {
      if (r.outcome !== 'ok') return r;
      parts.push(r.value);
      upstreamMs = Math.max(upstreamMs, r.upstreamMs ?? 0);
    }
    const joined = joinParts(parts);
    // Each chunk has one length; the chunks must agree with each other as well.
    if (commonLength(joined.vectors) === -1)
      return { outcome: 'server', status: 200, reason: 'invalid embeddings body' };
    return { outcome: 'ok', value: joined, upstreamMs };
  }

  private call(
    adapter: EmbeddingsAdapter,
    endpoint: Endpoint,
    job: EmbeddingJob,
    timeoutMs: number,
    inject?: InjectTrace,
  ): Promise<AttemptResult<ParsedEmbeddings>> {
    const build = (key: string | null) => adapter.buildRequest(job, endpoint, key);
    return withPooledKey(this.routing.keys, adapter, endpoint, build, inject, async (req) => {
      const res = await this.routing.http.post(req, adapter, timeoutMs);
      if (res.outcome !== 'ok') return res;
      const parsed = adapter.parseResponse(res.body, job);
      if (!parsed || parsed.vectors.length !== inputCount(job.input) || !hasLength(parsed.vectors, job, endpoint)) {
        return { outcome: 'server', status: res.status, reason: 'invalid embeddings body' };
      }
      return { outcome: 'ok', value: parsed, upstreamMs: res.elapsedMs };
    });
  }

  /**
   * Write the usage record. Not async, and the event is built before it returns: the recorder may
   * hold it for a while (the Redis outbox lingers to share one XADD among requests), and an async
   * function suspended there would keep `r` alive, and with it the upstream body and the
   * response's chunks through several scavenges, which copied and promoted them.
   */
  private record(r: EmbeddingsOutcome): Promise<void> {
    return writeUsage(this.deps, r.ctx, embeddingsUsageEvent(r, new Date(this.deps.clock())));
  }
}

/** The prompt tokens an answer reports, for its span. */
function promptTokensOf(parsed: ParsedEmbeddings): number | null {
  return parsed.promptTokens;
}
