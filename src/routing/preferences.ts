/**
 * The request's `provider` object (the hosted service's ProviderPreferences) and the small
 * helpers that interpret it: slug/display-name matching and price/performance limits.
 * @module
 */
import type { Endpoint, Quantization } from '../catalog/types';

/** A number, or percentile thresholds (`{p50, p75, p90, p99}`); we compare against p50. */
export type PercentilePreference =
  number | { p50?: number | null; p75?: number | null; p90?: number | null; p99?: number | null };

/** Sort keys of `provider.sort`. */
export type SortBy = 'price' | 'throughput' | 'latency' | 'exacto';

/** The validated `provider` object; every field optional and nullable, as on the hosted service. */
export interface ProviderPreferences {
  order?: string[] | null;
  allow_fallbacks?: boolean | null;
  require_parameters?: boolean | null;
  data_collection?: 'allow' | 'deny' | null;
  zdr?: boolean | null;
  enforce_distillable_text?: boolean | null;
  only?: string[] | null;
  ignore?: string[] | null;
  quantizations?: Quantization[] | null;
  sort?: SortBy | { by?: SortBy | null; partition?: 'model' | 'none' | null } | null;
  /** USD per 1M tokens (prompt/completion), per image/audio unit, per request; strings or numbers. */
  max_price?: {
    prompt?: number | string | null;
    completion?: number | string | null;
    image?: number | string | null;
    audio?: number | string | null;
    request?: number | string | null;
  } | null;
  preferred_min_throughput?: PercentilePreference | null;
  preferred_max_latency?: PercentilePreference | null;
}

/**
 * Whether a provider reference from the request names this endpoint's provider: the slug or the
 * display name, case-insensitively; a base slug (`google-vertex`) also matches its variants
 * (`google-vertex/us-east5`).
 */
export function matchesProvider(ref: string, endpoint: Endpoint): boolean {
  const r = ref.trim().toLowerCase();
  const slug = endpoint.provider.slug;
  return r === slug || r === endpoint.provider.name.toLowerCase() || slug.startsWith(`${r}/`);
}

/** The p50 threshold of a percentile preference (a bare number is p50), or null. */
export function p50Of(pref: PercentilePreference | null | undefined): number | null {
  if (pref === null || pref === undefined) return null;
  if (typeof pref === 'number') return pref;
  return pref.p50 ?? pref.p75 ?? pref.p90 ?? pref.p99 ?? null;
}

/** The sort key, from the string or the object form. */
export function sortKey(sort: ProviderPreferences['sort']): SortBy | null {
  if (!sort) return null;
  return typeof sort === 'string' ? sort : (sort.by ?? null);
}

/** Whether the endpoint's prices are within `max_price` (USD per 1M prompt tokens, per image, per request). */
export function withinMaxPrice(endpoint: Endpoint, max: ProviderPreferences['max_price']): boolean {
  if (!max) return true;
  const p = endpoint.pricing;
  // Compare in micro-dollars per 1M to stay clear of float noise on exact limits.
  const le = (price: number, limit: number | string | null | undefined, scale: number) =>
    limit === null || limit === undefined || Math.round(price * scale * 1e6) <= Math.round(Number(limit) * 1e6);
  return (
    le(p.prompt, max.prompt, 1e6) &&
    le(p.completion, max.completion, 1e6) &&
    le(p.image, max.image, 1) &&
    le(p.request, max.request, 1)
  );
}
