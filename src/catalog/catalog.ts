/**
 * The loaded catalog: model lookup for POST /embeddings ({@link Catalog.resolveEmbeddings}) and the
 * chat doors ({@link Catalog.resolveChatTarget}, with model variants and provider wildcards):
 * unknown → 404 naming where the list is, a known model of the other kind → 400; and the models of
 * each kind for the model lists.
 * @module
 */
import { NotFoundError, ValidationError } from '../errors';
import type { SortBy } from '../routing/preferences';
import type { CatalogModel, ProviderInfo } from './types';
import { CATALOG_VARIANTS, ROUTING_VARIANTS, refusedVariant, splitVariant } from './variants';
import { wildcardModel, type Wildcard } from './wildcard';

/** A chat model name resolved: the model, and the sort and name of its routing variant, if it had one. */
export interface ChatTarget {
  model: CatalogModel;
  /** The `provider.sort` its routing variant stands for (`:nitro` → `throughput`); null without one. */
  sort: SortBy | null;
  /** The routing variant (`nitro`), for the usage record; null without one. */
  variant: string | null;
}

/** Immutable after construction; shared by every request. */
export class Catalog {
  private readonly byId = new Map<string, CatalogModel>();
  /** Chat models by their other names: aliases first, then endpoints' upstream names, then those undated. */
  private readonly byAlias = new Map<string, CatalogModel>();
  private readonly others: ReadonlySet<string>;
  /** The embeddings models, in catalog order (GET /embeddings/models). */
  readonly embeddingsModels: readonly CatalogModel[];
  /** The chat models, in catalog order. */
  readonly chatModels: readonly CatalogModel[];

  /**
   * @param models - every model of both kinds (embeddings first, then chat)
   * @param otherModels - ids known to be neither served here nor unknown (a clearer 400 for POST /embeddings)
   * @param wildcards - the providers' wildcards, for chat models the catalog lacks
   */
  constructor(
    readonly models: readonly CatalogModel[],
    readonly providers: readonly ProviderInfo[],
    otherModels: readonly string[],
    private readonly wildcards: readonly Wildcard[] = [],
  ) {
    for (const m of models) this.byId.set(m.id.toLowerCase(), m);
    this.others = new Set(otherModels.map((id) => id.toLowerCase()));
    this.embeddingsModels = models.filter((m) => m.kind === 'embeddings');
    this.chatModels = models.filter((m) => m.kind === 'chat');
    const names = (m: CatalogModel) => m.endpoints.map((e) => e.upstreamModel);
    const steps: Array<(m: CatalogModel) => readonly string[]> = [
      (m) => m.aliases ?? [],
      names,
      (m) => names(m).map(undated),
    ];
    for (const step of steps)
      for (const m of this.chatModels)
        for (const name of step(m)) {
          const key = name.toLowerCase();
          if (!this.byId.has(key) && !this.byAlias.has(key)) this.byAlias.set(key, m);
        }
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
   * The chat model named by `id` (case-insensitive): its catalog id, else one of its names as
   * agents send them: an alias of `chat-models.yaml` (`claude-sonnet-4-5`), an endpoint's upstream
   * model name (`claude-sonnet-4-20250514`), or either without its date (`claude-sonnet-4`; a dated
   * id whose date the catalog does not know, `claude-sonnet-4-5-20990101`, is the undated model).
   * A routing variant resolves to its base model ({@link resolveChatTarget}).
   * @throws ValidationError (400) for an embeddings model or a refused variant
   * @throws NotFoundError (404) for a model this gateway does not serve
   */
  resolveChat(id: string): CatalogModel {
    return this.resolveChatTarget(id).model;
  }

  /**
   * `id` as {@link resolveChat} names it, with its variant: a name the catalog knows whole (a
   * catalog variant such as `x:free` is one) is that model; else a routing variant's suffix
   * (`:nitro`, `:floor`, `:exacto`) is cut off and its sort kept; a catalog variant the catalog
   * lacks is a 404, `:online` and an unknown suffix a 400 (unless a wildcard covers the whole
   * name: a local server's `llama3:8b`). A name found nowhere may fall under a provider wildcard.
   */
  resolveChatTarget(id: string): ChatTarget {
    const known = this.lookupChat(id);
    if (known) return { model: known, sort: null, variant: null };
    const split = splitVariant(id);
    if (split) {
      const sort = ROUTING_VARIANTS.get(split.variant);
      if (sort !== undefined) {
        const base = this.lookupChat(split.base) ?? this.wildcard(split.base, id);
        if (base) return { model: base, sort, variant: split.variant };
      } else if (!CATALOG_VARIANTS.has(split.variant)) {
        const whole = split.variant === 'online' ? null : this.wildcard(id, id);
        if (whole) return { model: whole, sort: null, variant: null };
        throw refusedVariant(id, split.variant);
      }
      throw unknownModel(id, MODELS_LIST_PATH);
    }
    const wild = this.wildcard(id, id);
    if (wild) return { model: wild, sort: null, variant: null };
    throw unknownModel(id, MODELS_LIST_PATH);
  }

  /** The catalog's chat model named `id` by id or any other name, or undefined; 400 for an embeddings model. */
  private lookupChat(id: string): CatalogModel | undefined {
    const key = id.toLowerCase();
    const model = this.byId.get(key) ?? this.byAlias.get(key) ?? this.byAlias.get(undated(key));
    if (model && model.kind !== 'chat')
      throw new ValidationError([
        { path: 'body.model', message: `${id} is not a chat model; use a chat model from GET /models` },
      ]);
    return model;
  }

  /** `name` under a provider wildcard, or null; `asked` is the name the client sent (named in a 404). */
  private wildcard(name: string, asked: string): CatalogModel | null {
    return this.wildcards.length === 0 ? null : wildcardModel(this.wildcards, name, asked, MODELS_LIST_PATH);
  }

  /** The model of either kind named by `id` (case-insensitive), or undefined. */
  find(id: string): CatalogModel | undefined {
    return this.byId.get(id.toLowerCase());
  }
}

/** `name` without a release-date suffix (`-20250514`, `@20250514`) or `-latest`. */
export function undated(name: string): string {
  return name.replace(/(?:[-@]\d{8}|-latest)$/i, '');
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
