/**
 * Model variants, the hosted service's `:suffix` on a model name. A routing variant (`:nitro`,
 * `:floor`, `:exacto`) works on any model and only sorts its endpoints; a catalog variant
 * (`:free`, `:thinking`, `:extended`) is a model of its own, served only where the catalog lists
 * that id; `:online` asked for web search, which this gateway does not have. See docs/api.md.
 * @module
 */
import { ValidationError } from '../errors';
import type { SortBy } from '../routing/preferences';

/** The routing variants and the `provider.sort` each is a shortcut for. */
export const ROUTING_VARIANTS: ReadonlyMap<string, SortBy> = new Map([
  ['nitro', 'throughput'],
  ['floor', 'price'],
  ['exacto', 'exacto'],
]);

/** Suffixes that name a catalog entry of their own (`deepseek/deepseek-r1:free`), never a routing of the base model. */
export const CATALOG_VARIANTS: ReadonlySet<string> = new Set(['free', 'thinking', 'extended']);

/** A model name split at its variant suffix: the colon after the last `/`, with something on both sides. */
export interface VariantName {
  base: string;
  variant: string;
}

/** `name` split at its `:variant`, or null when it has none. */
export function splitVariant(name: string): VariantName | null {
  const colon = name.lastIndexOf(':');
  if (colon <= name.lastIndexOf('/') + 1 || colon === name.length - 1) return null;
  return { base: name.slice(0, colon), variant: name.slice(colon + 1).toLowerCase() };
}

/**
 * 400 for a suffix this gateway does not route by: `:online` (web search) or one it does not know.
 * Called only for suffixes that are neither routing nor catalog variants.
 */
export function refusedVariant(name: string, variant: string): ValidationError {
  const message =
    variant === 'online'
      ? `${name}: the :online variant (web search) is not available on this gateway; send the model without it`
      : `${name}: unknown model variant :${variant}; the variants are :${[...ROUTING_VARIANTS.keys()].join(', :')} (any model) and :${[...CATALOG_VARIANTS].join(', :')} (where GET /api/v1/models lists them)`;
  return new ValidationError([{ path: 'body.model', message }]);
}
