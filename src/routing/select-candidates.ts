/**
 * Candidate selection: the model's endpoints filtered by what the request needs (input kind,
 * modalities, parameters) and by the `provider` object's hard rules, then ordered by `order`,
 * `sort` (default: cheapest first) and the soft `preferred_*` preferences. Pure: no I/O, no
 * circuit state (the runner skips open circuits).
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

function accepts(e: Endpoint, needs: RequestNeeds): boolean {
  if (!e.provider.configured) return false;
  if (needs.inputKind === 'tokens') return e.tokenInput;
  for (const m of needs.modalities) if (!e.inputModalities.has(m)) return false;
  return true;
}

function allowedByPreferences(e: Endpoint, model: CatalogModel, needs: RequestNeeds, p: ProviderPreferences): boolean {
  if (p.require_parameters) for (const param of needs.parameters) if (!e.parameters.has(param)) return false;
  if (p.only && p.only.length > 0 && !p.only.some((ref) => matchesProvider(ref, e))) return false;
  if (p.ignore?.some((ref) => matchesProvider(ref, e))) return false;
  if (p.data_collection === 'deny' && (e.retainsData || e.trainsOnData)) return false;
  if (p.zdr && !e.zdr) return false;
  if (p.quantizations && p.quantizations.length > 0 && !p.quantizations.includes(e.quantization)) return false;
  if (p.enforce_distillable_text && !model.distillable) return false;
  return withinMaxPrice(e, p.max_price);
}

const COMPARATORS = {
  price: (a: Endpoint, b: Endpoint) => a.pricing.prompt - b.pricing.prompt,
  throughput: (a: Endpoint, b: Endpoint) => (b.throughput ?? 0) - (a.throughput ?? 0),
  latency: (a: Endpoint, b: Endpoint) => (a.latencyMs ?? Infinity) - (b.latencyMs ?? Infinity),
} as const;

/** Stable partition: endpoints meeting the soft preferences first, the rest after (never dropped). */
function preferPerformance(list: Endpoint[], p: ProviderPreferences): Endpoint[] {
  const minTps = p50Of(p.preferred_min_throughput);
  const maxLatencyS = p50Of(p.preferred_max_latency);
  if (minTps === null && maxLatencyS === null) return list;
  const meets = (e: Endpoint) =>
    (minTps === null || (e.throughput ?? 0) >= minTps) && (maxLatencyS === null || (e.latencyMs ?? Infinity) <= maxLatencyS * 1000);
  return [...list.filter(meets), ...list.filter((e) => !meets(e))];
}

/**
 * The endpoints to try, in order. With `allow_fallbacks: false` only the first candidate, or only
 * the providers of `order`, remain. An empty result means nothing eligible (→ 503).
 */
export function selectCandidates(model: CatalogModel, needs: RequestNeeds, prefs: ProviderPreferences | null | undefined): Endpoint[] {
  const p = prefs ?? {};
  const eligible = model.endpoints.filter((e) => accepts(e, needs) && allowedByPreferences(e, model, needs, p));
  const key = sortKey(p.sort);
  const sorted = preferPerformance(eligible.sort(COMPARATORS[key === 'throughput' || key === 'latency' ? key : 'price']), p);
  const allowFallbacks = p.allow_fallbacks ?? true;
  if (p.order && p.order.length > 0) {
    const ordered: Endpoint[] = [];
    for (const ref of p.order) for (const e of sorted) if (!ordered.includes(e) && matchesProvider(ref, e)) ordered.push(e);
    return allowFallbacks ? [...ordered, ...sorted.filter((e) => !ordered.includes(e))] : ordered;
  }
  return allowFallbacks ? sorted : sorted.slice(0, 1);
}
