/**
 * GET /embeddings/models paging: both `offset` and `limit` omitted → the full list; otherwise
 * `offset` (default 0) and `limit` (default 500, at most 1000), with `links.next` naming the next
 * page while one exists.
 * @module
 */
import { API_PREFIX } from '../http/router';
import type { Catalog } from '../catalog/catalog';
import type { Wire } from '../wire';

/** Default page size when only `offset` is given. */
export const DEFAULT_MODELS_LIMIT = 500;

/** The validated query (schema `embeddings.models.query`). */
export type ModelsQuery = Wire<'embeddings.models.query'>;

/** `{data, total_count, links:{next}}` for one page of the catalog. */
export function listEmbeddingModels(catalog: Catalog, q: ModelsQuery) {
  const all = catalog.models;
  if (q.offset === undefined && q.limit === undefined) {
    return { data: all.map((m) => m.wire), total_count: all.length, links: { next: null } };
  }
  const offset = q.offset ?? 0;
  const limit = q.limit ?? DEFAULT_MODELS_LIMIT;
  const page = all.slice(offset, offset + limit).map((m) => m.wire);
  const next = offset + limit < all.length ? `${API_PREFIX}/embeddings/models?offset=${offset + limit}&limit=${limit}` : null;
  return { data: page, total_count: all.length, links: { next } };
}
