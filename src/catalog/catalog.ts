/**
 * The loaded catalog: model lookup for POST /embeddings (unknown → 404, a known non-embeddings
 * model → 400) and the model list for GET /embeddings/models.
 * @module
 */
import { NotFoundError, ValidationError } from '../errors';
import type { CatalogModel, ProviderInfo } from './types';

/** Immutable after construction; shared by every request. */
export class Catalog {
  private readonly byId = new Map<string, CatalogModel>();
  private readonly others: ReadonlySet<string>;

  constructor(
    readonly models: readonly CatalogModel[],
    readonly providers: readonly ProviderInfo[],
    otherModels: readonly string[],
  ) {
    for (const m of models) this.byId.set(m.id.toLowerCase(), m);
    this.others = new Set(otherModels.map((id) => id.toLowerCase()));
  }

  /**
   * The embeddings model named by `id` (case-insensitive).
   * @throws ValidationError (400) for a model the gateway knows that is not an embeddings model
   * @throws NotFoundError (404) for a model nobody knows
   */
  resolve(id: string): CatalogModel {
    const key = id.toLowerCase();
    const model = this.byId.get(key);
    if (model) return model;
    if (this.others.has(key)) {
      throw new ValidationError([{ path: 'body.model', message: `${id} is not an embeddings model; use an embeddings model from GET /embeddings/models` }]);
    }
    throw unknownModel(id);
  }

  /**
   * The chat model named by `id` (case-insensitive).
   * @throws ValidationError (400) for a model of another kind
   * @throws NotFoundError (404) for a model nobody knows
   */
  resolveChat(id: string): CatalogModel {
    const model = this.byId.get(id.toLowerCase());
    if (model?.kind === 'chat') return model;
    if (model) throw new ValidationError([{ path: 'body.model', message: `${id} is not a chat model; use a chat model from GET /models` }]);
    throw unknownModel(id);
  }

  /** The embeddings model named by `id` (case-insensitive), or undefined. */
  find(id: string): CatalogModel | undefined {
    return this.byId.get(id.toLowerCase());
  }
}

/** Where the models this gateway serves are listed (named in every unknown-model 404). */
export const MODELS_LIST_PATH = '/api/v1/embeddings/models';

/** 404 with the spec's message, saying which model was not found and where the list is. */
export function unknownModel(id: string): NotFoundError {
  return new NotFoundError(undefined, { model: id, reason: `no model named ${id}; the models served are listed at ${MODELS_LIST_PATH}`, models_list: MODELS_LIST_PATH });
}
