/**
 * Candidate selection: the model's endpoints filtered by what the request needs (input kind,
 * modalities, parameters) and by the `provider` object's hard rules, then ordered by `order`,
 * `sort` and the soft `preferred_*` preferences. Without `order` or `sort`, the first endpoint is
 * drawn at random weighted by the inverse square of its price (as the hosted service balances
 * load), the rest follow cheapest first as fallbacks. Pure apart from the injected random
 * source: no I/O, no circuit state (the runner skips open circuits).
 * @module
 */
import type { CatalogModel, Endpoint, Modality, RoutableParameter } from '../catalog/types';
import { matchesProvider, p50Of, sortKey, withinMaxPrice, type ProviderPreferences } from './preferences';

/** What the request needs from an endpoint. */
export interface RequestNeeds {
  inputKind: 'text' | 'tokens' | 'multimodal';
  /** Modalities present in the input. */
  modalities: ReadonlySet<Modality>;
  /** Routable parameters the request sets. */
  parameters: ReadonlySet<RoutableParameter>;
}

/** Whether the endpoint can take this request's input at all (its kind and modalities). */
export function acceptsInput(e: Endpoint, needs: RequestNeeds): boolean {
  if (needs.inputKind === 'tokens') return e.tokenInput;
  for (const m of needs.modalities) if (!e.inputModalities.has(m)) return false;
  return true;
}

/**
 * One hard rule of the `provider` object: the request field it comes from, the test, and what
 * to tell a client whose rule excluded every endpoint (see `availability.ts`).
 */
export interface ProviderConstraint {
  field: string;
  allows(e: Endpoint, model: CatalogModel, needs: RequestNeeds, p: ProviderPreferences): boolean;
  detail(p: ProviderPreferences): string;
}

const list = (refs: string[] | null | undefined) => (refs ?? []).slice(0, 5).join(', ');

/** The hard rules, in the order they are reported. */
export const PROVIDER_CONSTRAINTS: readonly ProviderConstraint[] = [
  {
    field: 'provider.require_parameters',
    allows: (e, _m, needs, p) =>
      !p.require_parameters || [...needs.parameters].every((param) => e.parameters.has(param)),
    detail: () => 'no endpoint supports every parameter the request sets',
  },
  {
    field: 'provider.only',
    allows: (e, _m, _n, p) => !p.only || p.only.length === 0 || p.only.some((ref) => matchesProvider(ref, e)),
    detail: (p) => `no endpoint of a provider in only: ${list(p.only)}`,
  },
  {
    field: 'provider.ignore',
    allows: (e, _m, _n, p) => !p.ignore?.some((ref) => matchesProvider(ref, e)),
    detail: (p) => `every provider of the model is ignored: ${list(p.ignore)}`,
  },
  {
    field: 'provider.data_collection',
    allows: (e, _m, _n, p) => p.data_collection !== 'deny' || !(e.retainsData || e.trainsOnData),
    detail: () => 'no endpoint that neither retains nor trains on data (data_collection: deny)',
  },
  { field: 'provider.zdr', allows: (e, _m, _n, p) => !p.zdr || e.zdr, detail: () => 'no zero-data-retention endpoint' },
  {
    field: 'provider.quantizations',
    allows: (e, _m, _n, p) =>
      !p.quantizations || p.quantizations.length === 0 || p.quantizations.includes(e.quantization),
    detail: (p) => `no endpoint with a quantization in ${(p.quantizations ?? []).join(', ')}`,
  },
  {
    field: 'provider.enforce_distillable_text',
    allows: (_e, m, _n, p) => !p.enforce_distillable_text || m.distillable,
    detail: () => 'the model does not allow distillation',
  },
  {
    field: 'provider.max_price',
    allows: (e, _m, _n, p) => withinMaxPrice(e, p.max_price),
    detail: () => 'no endpoint within max_price',
  },
];

function accepts(e: Endpoint, needs: RequestNeeds): boolean {
  return e.provider.configured && acceptsInput(e, needs);
}

function allowedByPreferences(e: Endpoint, model: CatalogModel, needs: RequestNeeds, p: ProviderPreferences): boolean {
  for (const c of PROVIDER_CONSTRAINTS) if (!c.allows(e, model, needs, p)) return false;
  return true;
}

/** How many of the tool-calling parameters (`tools`, `tool_choice`) the endpoint's catalog entry lists. */
const toolCalling = (e: Endpoint) => Number(e.parameters.has('tools')) + Number(e.parameters.has('tool_choice'));

const throughput = (a: Endpoint, b: Endpoint) => (b.throughput ?? 0) - (a.throughput ?? 0);

/**
 * The orders of `provider.sort`. `exacto` stands in for the hosted service's tool-calling quality
 * figures, which this gateway does not have: endpoints listing `tools` and `tool_choice` first,
 * then the fastest (see docs/api.md).
 */
const COMPARATORS = {
  price: (a: Endpoint, b: Endpoint) => a.pricing.prompt - b.pricing.prompt,
  throughput,
  latency: (a: Endpoint, b: Endpoint) => (a.latencyMs ?? Infinity) - (b.latencyMs ?? Infinity),
  exacto: (a: Endpoint, b: Endpoint) => toolCalling(b) - toolCalling(a) || throughput(a, b),
} as const;

/** Stable partition: endpoints meeting the soft preferences first, the rest after (never dropped). */
function preferPerformance(list: Endpoint[], p: ProviderPreferences): Endpoint[] {
  const minTps = p50Of(p.preferred_min_throughput);
  const maxLatencyS = p50Of(p.preferred_max_latency);
  if (minTps === null && maxLatencyS === null) return list;
  const meets = (e: Endpoint) =>
    (minTps === null || (e.throughput ?? 0) >= minTps) &&
    (maxLatencyS === null || (e.latencyMs ?? Infinity) <= maxLatencyS * 1000);
  return [...list.filter(meets), ...list.filter((e) => !meets(e))];
}

/** A price too small to square: free endpoints weigh the same as one at a millionth of a cent per token. */
const MIN_WEIGHT_PRICE = 1e-11;

/**
 * Move one endpoint to the front, drawn with probability ∝ 1/price² (so a provider at half the
 * price gets four times the traffic); `random()` ∈ [0, 1). The list keeps its order otherwise.
 */
export function balanceByPrice(sorted: Endpoint[], random: () => number): Endpoint[] {
  if (sorted.length < 2) return sorted;
  const weights = sorted.map((e) => 1 / Math.max(e.pricing.prompt, MIN_WEIGHT_PRICE) ** 2);
  let point = random() * weights.reduce((a, b) => a + b, 0);
  let pick = 0;
  while (pick < sorted.length - 1 && point >= (weights[pick] as number)) point -= weights[pick++] as number;
  return pick === 0 ? sorted : [sorted[pick] as Endpoint, ...sorted.slice(0, pick), ...sorted.slice(pick + 1)];
}

/**
 * The endpoints to try, in order. With `allow_fallbacks: false` only the first candidate, or only
 * the providers of `order`, remain. An empty result means nothing eligible: `availability.ts`
 * then tells whether the request can never succeed (404) or no endpoint is usable now (503).
 * @param random - the draw of the default load balancing; tests pass a fixed one
 */
export function selectCandidates(
  model: CatalogModel,
  needs: RequestNeeds,
  prefs: ProviderPreferences | null | undefined,
  random: () => number = Math.random,
): Endpoint[] {
  const p = prefs ?? {};
  const eligible = model.endpoints.filter((e) => accepts(e, needs) && allowedByPreferences(e, model, needs, p));
  const key = sortKey(p.sort);
  const byKey = eligible.sort(COMPARATORS[key ?? 'price']);
  const balanced = key === null && !(p.order && p.order.length > 0) ? balanceByPrice(byKey, random) : byKey;
  const sorted = preferPerformance(balanced, p);
  const allowFallbacks = p.allow_fallbacks ?? true;
  if (p.order && p.order.length > 0) {
    const ordered: Endpoint[] = [];
    for (const ref of p.order)
      for (const e of sorted) if (!ordered.includes(e) && matchesProvider(ref, e)) ordered.push(e);
    return allowFallbacks ? [...ordered, ...sorted.filter((e) => !ordered.includes(e))] : ordered;
  }
  return allowFallbacks ? sorted : sorted.slice(0, 1);
}
