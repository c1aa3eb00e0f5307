/**
 * The names of every registered wire adapter, per kind of model: what the catalog loader checks
 * each provider and endpoint against.
 * @module
 */
import type { CatalogAdapters } from '../catalog/load';
import { EMBEDDINGS_ADAPTERS } from './embeddings-registry';
import { CHAT_ADAPTERS } from './chat-registry';

/** Embeddings adapters (providers.yaml `adapter` values that serve `config/models.yaml`) and chat adapters. */
export const ADAPTER_NAMES: CatalogAdapters = {
  embeddings: new Set(EMBEDDINGS_ADAPTERS.keys()),
  chat: new Set(CHAT_ADAPTERS.keys()),
};
