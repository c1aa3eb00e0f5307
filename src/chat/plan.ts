/**
 * The first half of every chat-like door, before any spend is reserved: the models (the door's
 * model, then the `models` fallback list), the endpoints that may serve the request in the order
 * they are tried, and the worst case the budget step reserves.
 * @module
 */
import type { Catalog, ChatTarget } from '../catalog/catalog';
import type { CatalogModel, Endpoint } from '../catalog/types';
import { splitVariant } from '../catalog/variants';
import { GatewayError, STATUS_MESSAGES, ValidationError } from '../errors';
import { noCandidates } from '../routing/availability';
import type { ProviderPreferences } from '../routing/preferences';
import { selectCandidates, type RequestNeeds } from '../routing/select-candidates';
import { maxCompletionOn, outgrowsSlice, worstCaseCost } from './cost';
import { readPrompt, type ChatPrompt } from './prompt';
import type { ChatBody } from './types';
import type { PlanInput } from '../inference/door';
import type { WireFormat } from '../inference/exchange';
import { chatAdapterFor } from '../providers/chat-registry';

/** What the plan decided. */
export interface ChatPlan {
  /** The first model named: errors before any answer are about it. */
  primary: CatalogModel;
  /** That model as the client named it, less a routing variant (the rankings and classifiers see this name). */
  requested: string;
  /** Endpoints to try in order: the first model's, then each fallback model's. */
  candidates: Endpoint[];
  prompt: ChatPrompt;
  /** The client's completion bound (`max_completion_tokens`, else `max_tokens`), if set. */
  maxTokens: number | undefined;
  /** The choices asked for (`n`), each bounded by `maxTokens`. */
  choices: number;
  /** The most the request can cost on any candidate (USD), or with `slice` its prompt and first slice: what the budget step reserves. */
  estimateUsd: number;
  /** The most the request can cost on any candidate (USD), sliced or not: what an answer is capped at when no limit held it. */
  worstUsd: number;
  /** Whether `estimateUsd` holds only a first slice of the completion (the priced route's cue). */
  sliced: boolean;
  /** The completion slice, when a candidate's completion may outgrow one; null: the worst case is held. */
  slice: CompletionSlice | null;
  stream: boolean;
  /** The client set `provider.order`: its order wins over the session's endpoint (no stickiness). */
  explicitOrder: boolean;
  /** Candidate endpoint id → the routing variant (`nitro`) of the model name it came from, for the record. */
  variants: ReadonlyMap<string, string>;
}

/** How an answer's hold grows (budgets/slices.ts): `tokens` at a time, at the dearest candidate's completion price. */
export interface CompletionSlice {
  tokens: number;
  usdPerToken: number;
  /** The most completion any candidate may return (its choices together): no slice is asked for past it. */
  ceilingTokens: number;
}

/** The slice of `candidates`, or null when none of them can outgrow one. */
function sliceOf(
  candidates: readonly Endpoint[],
  asked: number | undefined,
  choices: number,
  tokens: number,
): CompletionSlice | null {
  if (!candidates.some((e) => outgrowsSlice(e, asked, choices, tokens))) return null;
  return {
    tokens,
    usdPerToken: Math.max(...candidates.map((e) => e.pricing.completion)),
    ceilingTokens: choices * Math.max(...candidates.map((e) => maxCompletionOn(e, 0, asked))),
  };
}

/** The most on any candidate: the worst case, and what is reserved (its first slice when sliced). */
function reservedCosts(
  candidates: readonly Endpoint[],
  promptTokens: number,
  maxTokens: number | undefined,
  bound: boolean,
  choices: number,
  slice: CompletionSlice | null,
): { estimateUsd: number; worstUsd: number } {
  const most = (sliceTokens: number) =>
    Math.max(...candidates.map((e) => worstCaseCost(e, promptTokens, maxTokens, bound, choices, sliceTokens)));
  const worstUsd = most(0);
  return { estimateUsd: slice ? most(slice.tokens) : worstUsd, worstUsd };
}

/** The models to try, in order, each once: `model`, then `models`. */
export function modelIds(model: string | undefined, models: readonly string[] | undefined): string[] {
  const ids = [...(model ? [model] : []), ...(models ?? [])];
  return [...new Map(ids.map((id) => [id.toLowerCase(), id])).values()];
}

/** The chat door's plan input. */
export function chatPlanInput(body: ChatBody): PlanInput {
  return {
    modelIds: modelIds(body.model, body.models),
    provider: body.provider,
    prompt: readPrompt(body),
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    choices: body.n ?? 1,
    stream: body.stream === true,
  };
}

/** 400 when the prompt alone is longer than every endpoint's context. */
function contextExceeded(model: CatalogModel, tokens: number): GatewayError {
  const longest = Math.max(...model.endpoints.map((e) => e.contextLength));
  return new GatewayError(400, STATUS_MESSAGES[400], {
    metadata: {
      reason: `the prompt is about ${tokens} tokens; ${model.id}'s longest context is ${longest} tokens`,
      context_length: longest,
      prompt_tokens: tokens,
    },
  });
}

/**
 * The `provider` object a model name's routing variant sorts by: its sort replaces the body's
 * `provider.sort` for that model only (the object form keeps its `partition`).
 */
export function withVariantSort(
  provider: ProviderPreferences | null | undefined,
  target: ChatTarget,
): ProviderPreferences | null | undefined {
  if (target.sort === null) return provider;
  const sort = provider?.sort;
  return { ...provider, sort: sort && typeof sort === 'object' ? { ...sort, by: target.sort } : target.sort };
}

/**
 * Plan a door's request. Throws a GatewayError: 404 for an unknown model, 400 for a model of
 * another kind, a refused variant or a prompt no endpoint can hold, the no-endpoints error when the
 * `provider` object excludes every one.
 */
export function planChat(catalog: Catalog, input: PlanInput, random: () => number): ChatPlan {
  const { modelIds: ids, prompt, maxTokens, provider } = input;
  if (ids.length === 0)
    throw new ValidationError([
      { path: 'body.model', message: 'is required (or models, a list of models to try in order)' },
    ]);
  const targets = ids.map((id) => catalog.resolveChatTarget(id));
  const first = targets[0] as ChatTarget;
  const primary = first.model;
  const needs: RequestNeeds = {
    inputKind: prompt.modalities.size > 1 ? 'multimodal' : 'text',
    modalities: prompt.modalities,
    parameters: prompt.parameters,
  };
  const candidates: Endpoint[] = [];
  const variants = new Map<string, string>();
  for (const target of targets) {
    // The bound decides for nearly every endpoint; the exact count only for one the bound does not fit.
    const fitting = selectCandidates(target.model, needs, withVariantSort(provider, target), random).filter(
      (e) => e.contextLength >= prompt.tokenBound || e.contextLength >= prompt.tokens,
    );
    // `x` and `x:nitro` both listed: each endpoint is tried once, where it first came.
    const fresh = fitting.filter((e) => !candidates.some((c) => c.id === e.id));
    for (const e of fresh) if (target.variant) variants.set(e.id, target.variant);
    candidates.push(...fresh);
  }
  if (candidates.length === 0) {
    const prefs = withVariantSort(provider, first);
    if (selectCandidates(primary, needs, prefs, random).length > 0) throw contextExceeded(primary, prompt.tokens);
    throw noCandidates(primary, needs, prefs);
  }
  const choices = input.choices ?? 1;
  const slice = sliceOf(candidates, maxTokens, choices, input.sliceTokens ?? 0);
  const { estimateUsd, worstUsd } = reservedCosts(candidates, prompt.tokenBound, maxTokens, true, choices, slice);
  const { stream } = input;
  const explicitOrder = (provider?.order?.length ?? 0) > 0;
  // The rankings and classifiers see the name without its routing variant: the model is the base one.
  const requested = first.variant ? (splitVariant(ids[0]!)?.base ?? ids[0]!) : ids[0]!;
  const sliced = slice !== null;
  return {
    ...{ primary, requested, candidates, prompt, maxTokens, choices, estimateUsd, worstUsd, sliced, slice },
    ...{ stream, explicitOrder, variants },
  };
}

/**
 * For a sliced plan of a whole answer, the same plan holding its whole worst case (no slices);
 * null otherwise. The priced route tries it first: metering a whole answer in slices means reading
 * it from the upstream as a stream and assembling it, which costs far more than one whole call, so
 * it is done only when the worst case does not fit.
 */
export function wholePlan(plan: ChatPlan): ChatPlan | null {
  return plan.sliced && !plan.stream ? { ...plan, sliced: false, slice: null, estimateUsd: plan.worstUsd } : null;
}

/**
 * The plan with its worst case from the prompt's exact count instead of its bound; null when that
 * cannot be smaller. The priced route asks for it only when the bound's reservation was refused.
 */
export function exactPlan(plan: ChatPlan): ChatPlan | null {
  const { prompt, maxTokens, choices, slice } = plan;
  const exact = reservedCosts(plan.candidates, prompt.tokens, maxTokens, false, choices, slice);
  return exact.estimateUsd < plan.estimateUsd ? { ...plan, ...exact } : null;
}

/**
 * `plan` with only the candidates whose wire format `keep` accepts: a request part that some
 * formats refuse (or cannot express) leaves those candidates out, and when none is left,
 * `refusal()` (a 400 naming the part) is thrown rather than an upstream error or a silent drop.
 */
export function narrowedToFormats(
  plan: ChatPlan,
  keep: (format: WireFormat) => boolean,
  refusal: () => GatewayError,
): ChatPlan {
  return narrowedTo(plan, (e) => keep(chatAdapterFor(e.provider.adapter).format), refusal);
}

/** `plan` with only the candidates `keep` accepts; `refusal` is thrown when none is left (a request part no candidate can take). */
export function narrowedTo(plan: ChatPlan, keep: (e: Endpoint) => boolean, refusal: () => GatewayError): ChatPlan {
  const candidates = plan.candidates.filter(keep);
  if (candidates.length === plan.candidates.length) return plan;
  if (candidates.length === 0) throw refusal();
  return { ...plan, candidates };
}
