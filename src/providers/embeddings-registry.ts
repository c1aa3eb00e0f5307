/**
 * The adapter registry: wire-format name (the `adapter` of providers.yaml) → adapter. The only
 * place in the code base that dispatches on a provider kind.
 * @module
 */
import type { EmbeddingsAdapter } from './embeddings-types';
import { openaiAdapter } from './openai';
import { cohereAdapter } from './cohere';
import { geminiAdapter } from './gemini';
import { voyageAdapter } from './voyage';
import { azureAdapter } from './azure';

/** Every wire format the gateway speaks. */
export const EMBEDDINGS_ADAPTERS: ReadonlyMap<string, EmbeddingsAdapter> = new Map(
  [openaiAdapter, cohereAdapter, geminiAdapter, voyageAdapter, azureAdapter].map((a) => [a.name, a]),
);

/** The adapter for `name`; the catalog loader has already checked that it exists. */
export function embeddingsAdapterFor(name: string): EmbeddingsAdapter {
  const adapter = EMBEDDINGS_ADAPTERS.get(name);
  if (!adapter) throw new Error(`no embeddings adapter named "${name}"`);
  return adapter;
}
