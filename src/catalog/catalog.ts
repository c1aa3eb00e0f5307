/**
 * The loaded catalog: model lookup for POST /embeddings ({@link Catalog.resolveEmbeddings}) and POST
 * /chat/completions ({@link Catalog.resolveChat}): unknown → 404 naming where the list is, a known
 * model of the other kind → 400; and the models of each kind for the model lists.
 * @module
 */
import { NotFoundError, ValidationError } from '../errors';
import type { CatalogModel, ProviderInfo } from './types';

/** Immutable after construction; shared by every request. */
export class Catalog {
  private readonly byId = new Map<string, CatalogModel>();
  private readonly others: ReadonlySet<string>;
  /** The embeddings models, in catalog order (GET /embeddings/models). */
  readonly embeddingsModels: readonly CatalogModel[];
  /** The chat models, in catalog order. */
  readonly chatModels: readonly CatalogModel[];

  /**
   * @param models - every model of both kinds (embeddings first, then chat)
   * @param otherModels - ids known to be neither served here nor unknown (a clearer 400 for POST /embeddings)
   */
  constructor(
    readonly models: readonly CatalogModel[],
    readonly providers: readonly ProviderInfo[],
    otherModels: readonly string[],
  ) {
    for (const m of models) this.byId.set(m.id.toLowerCase(), m);
    this.others = new Set(otherModels.map((id) => id.toLowerCase()));
    this.embeddingsModels = models.filter((m) => m.kind === 'embeddings');
    this.chatModels = models.filter((m) => m.kind === 'chat');
  }

  /**
   * The embeddings model named by `id` (case-insensitive).
   * @throws ValidationError (400) for a model the gateway knows that is not an embeddings model
   * @throws NotFoundError (404) for a model nobody knows
   */
  resolveEmbeddings(id: string): CatalogModel {
    const key = id.toLowerCase();
    const model = this.byId.get(key);
    if (model?.kind === 'embeddings') return model;
    if (model || this.others.has(key)) {
      throw new ValidationError([
        {
          path: 'body.model',
          message: `${id} is not an embeddings model; use an embeddings model from GET /embeddings/models`,
        },
      ]);
    }
    throw unknownModel(id, EMBEDDINGS_LIST_PATH);
  }

  /**
   * The chat model named by `id` (case-insensitive).
   * @throws ValidationError (400) for an embeddings model
   * @throws NotFoundError (404) for a model this gateway does not serve
   */
  resolveChat(id: string): CatalogModel {
    const model = this.byId.get(id.toLowerCase());
    if (model?.kind === 'chat') return model;
    if (model)
      throw new ValidationError([
        { path: 'body.model', message: `${id} is not a chat model; use a chat model from GET /models` },
      ]);
    throw unknownModel(id, MODELS_LIST_PATH);
  }

  /** The model of either kind named by `id` (case-insensitive), or undefined. */
  find(id: string): CatalogModel | undefined {
    return this.byId.get(id.toLowerCase());
  }
}

/** Where every model this gateway serves is listed (named in the 404 of a chat model or a model page). */
export const MODELS_LIST_PATH = '/api/v1/models';

/** Where the embeddings models are listed (named in POST /embeddings' 404). */
export const EMBEDDINGS_LIST_PATH = '/api/v1/embeddings/models';

/** 404 with the spec's message, saying which model was not found and where the list (`listPath`) is. */
export function unknownModel(id: string, listPath: string = MODELS_LIST_PATH): NotFoundError {
  return new NotFoundError(undefined, {
    model: id,
    reason: `no model named ${id}; the models served are listed at ${listPath}`,
    models_list: listPath,
  });
}
