/**
 * The model lists: `GET /models` (the catalog's models of both kinds, with the hosted route's
 * filters and sorts) and `GET /embeddings/models` (the embeddings models). Paging as the hosted
 * lists page: both `offset` and `limit` omitted → the full list; otherwise `offset` (default 0)
 * and `limit` (default 500, at most 1000), with `links.next` naming the next page while one exists.
 * @module
 */
import { API_PREFIX } from '../http/router';
import { ValidationError } from '../errors';
import type { CatalogModel, Modality } from './types';
import { cheapestEndpoint } from './wire';
import type { Wire } from '../wire';

/** Default page size when only `offset` is given. */
export const DEFAULT_MODELS_LIMIT = 500;

/** The validated paging query (schema `embeddings.models.query`). */
export type ModelsQuery = Wire<'embeddings.models.query'>;

/** The validated query of `GET /models` (schema `models.list.query`); lists are comma-separated. */
export type ModelsListQuery = Wire<'models.list.query'>;

/** The sorts this gateway can order by from its catalog (the hosted list's usage and benchmark sorts need data it does not have). */
export type ModelsSort =
  | 'newest'
  | 'pricing-low-to-high'
  | 'pricing-high-to-low'
  | 'context-high-to-low'
  | 'throughput-high-to-low'
  | 'latency-low-to-high';

/**
 * Filters of the hosted list that need data this gateway does not hold (usage categories,
 * benchmark indices, data regions, tool-call success): refused with a 400 rather than ignored,
 * so a filtered list is never silently unfiltered.
 */
const UNSUPPORTED = [
  'category',
  'region',
  'min_age_days',
  'max_age_days',
  'min_intelligence_index',
  'max_intelligence_index',
  'min_coding_index',
  'max_coding_index',
  'min_agentic_index',
  'max_agentic_index',
  'min_tool_success_rate',
  'max_tool_success_rate',
];

const list = (text: string | undefined): string[] | undefined =>
  text === undefined
    ? undefined
    : text
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter((s) => s !== '');

/** Prompt and completion USD per 1M tokens of the model's cheapest endpoint (what the price filters compare). */
function pricesPerMillion(m: CatalogModel): { prompt: number; completion: number } {
  const e = cheapestEndpoint(m);
  return { prompt: e.pricing.prompt * 1e6, completion: e.pricing.completion * 1e6 };
}

function outputs(m: CatalogModel): Set<string> {
  return new Set(m.endpoints.flatMap((e) => [...e.outputModalities]));
}

function inputs(m: CatalogModel): Set<string> {
  return new Set(m.endpoints.flatMap((e) => [...e.inputModalities]));
}

/** Whether `m` passes every filter of `q`. */
function matches(m: CatalogModel, q: ModelsListQuery): boolean {
  const wantedOut = list(q.output_modalities) ?? ['text'];
  if (!wantedOut.includes('all') && !wantedOut.some((o) => outputs(m).has(o))) return false;
  const wantedIn = list(q.input_modalities);
  if (wantedIn && !wantedIn.every((i) => inputs(m).has(i as Modality))) return false;
  const params = list(q.supported_parameters);
  if (params && !params.every((p) => m.endpoints.some((e) => e.parameters.has(p as never)))) return false;
  if (q.q !== undefined && !`${m.id}\n${m.name}`.toLowerCase().includes(q.q.toLowerCase())) return false;
  if (q.context !== undefined && m.contextLength < q.context) return false;
  const price = pricesPerMillion(m);
  if (q.min_price !== undefined && price.prompt < q.min_price) return false;
  if (q.max_price !== undefined && price.prompt > q.max_price) return false;
  if (q.min_output_price !== undefined && price.completion < q.min_output_price) return false;
  if (q.max_output_price !== undefined && price.completion > q.max_output_price) return false;
  const authors = list(q.model_authors);
  if (authors && !authors.includes(m.id.split('/')[0]!.toLowerCase())) return false;
  const providers = list(q.providers);
  if (
    providers &&
    !m.endpoints.some((e) => providers.includes(e.provider.slug) || providers.includes(e.provider.name.toLowerCase()))
  )
    return false;
  if (q.arch !== undefined && m.tokenizer.toLowerCase() !== q.arch.toLowerCase()) return false;
  if (q.distillable !== undefined && m.distillable !== (q.distillable === 'true')) return false;
  if (q.zdr === 'true' && !m.endpoints.some((e) => e.zdr)) return false;
  return true;
}

const best = (
  m: CatalogModel,
  of: (e: CatalogModel['endpoints'][number]) => number | null,
  pick: (a: number, b: number) => number,
  none: number,
): number => m.endpoints.map(of).reduce<number>((acc, v) => (v === null ? acc : pick(acc, v)), none);

/** Comparators per sort; a stable sort keeps catalog order among equals (and models without the figure last). */
const SORTS: Record<ModelsSort, (a: CatalogModel, b: CatalogModel) => number> = {
  newest: (a, b) => b.created - a.created,
  'pricing-low-to-high': (a, b) => averagePrice(a) - averagePrice(b),
  'pricing-high-to-low': (a, b) => averagePrice(b) - averagePrice(a),
  'context-high-to-low': (a, b) => b.contextLength - a.contextLength,
  'throughput-high-to-low': (a, b) =>
    best(b, (e) => e.throughput, Math.max, -1) - best(a, (e) => e.throughput, Math.max, -1),
  'latency-low-to-high': (a, b) =>
    best(a, (e) => e.latencyMs, Math.min, Infinity) - best(b, (e) => e.latencyMs, Math.min, Infinity) || 0,
};

/** The hosted sort's "average prompt/completion price". */
function averagePrice(m: CatalogModel): number {
  const p = pricesPerMillion(m);
  return (p.prompt + p.completion) / 2;
}

/** `{data, total_count, links:{next}}` for one page of `all`; `next` repeats `filters` so the next page is of the same list. */
function page(all: readonly CatalogModel[], q: ModelsQuery, path: string, filters: Record<string, unknown> = {}) {
  if (q.offset === undefined && q.limit === undefined) {
    return { data: all.map((m) => m.wire), total_count: all.length, links: { next: null } };
  }
  const offset = q.offset ?? 0;
  const limit = q.limit ?? DEFAULT_MODELS_LIMIT;
  const data = all.slice(offset, offset + limit).map((m) => m.wire);
  let next: string | null = null;
  if (offset + limit < all.length) {
    const params = new URLSearchParams(Object.entries(filters).map(([k, v]): [string, string] => [k, String(v)]));
    params.set('offset', String(offset + limit));
    params.set('limit', String(limit));
    next = `${API_PREFIX}${path}?${params.toString()}`;
  }
  return { data, total_count: all.length, links: { next } };
}

/** GET /embeddings/models: the embeddings models, paged. */
export function listEmbeddingModels(models: readonly CatalogModel[], q: ModelsQuery) {
  return page(models, q, '/embeddings/models');
}

/**
 * GET /models: the catalog's models filtered and sorted as `q` asks (output `text` by default,
 * as the hosted list: `output_modalities=all` or `embeddings` brings in the embeddings models), paged.
 * @throws ValidationError (400) for a filter of the hosted list this gateway cannot apply
 */
export function listModels(models: readonly CatalogModel[], q: ModelsListQuery) {
  const refused = UNSUPPORTED.filter((name) => q[name] !== undefined);
  if (refused.length > 0)
    throw new ValidationError(
      refused.map((name) => ({
        path: `query.${name}`,
        message: 'is not supported by this gateway (it has no data to filter by)',
      })),
    );
  let found = models.filter((m) => matches(m, q));
  if (q.sort) found = [...found].sort(SORTS[q.sort]);
  const { offset: _offset, limit: _limit, ...filters } = q;
  return page(found, q, '/models', filters);
}
