/**
 * The start-up warning for catalog models no request can use here: every endpoint's provider
 * needs a key that is not configured. One line naming the models and the variables that would
 * enable them, so a first `POST /embeddings` answering 404 is explained in the log already.
 * @module
 */
import { providerCredentialHint } from '../config';
import type { Logger } from '../observability/logger';
import type { Catalog } from './catalog';

/** Ids of the models with no configured endpoint, and the key variables that would enable them. */
export function unusableModels(catalog: Catalog): { models: string[]; keyVariables: string[] } {
  const models = catalog.models.filter((m) => !m.endpoints.some((e) => e.provider.configured));
  const providers = new Map(models.flatMap((m) => m.endpoints.map((e) => [e.provider.slug, e.provider.adapter])));
  const keyVariables = [...providers.keys()]
    .sort()
    .map((slug) => providerCredentialHint(slug, providers.get(slug) ?? ''));
  return { models: models.map((m) => m.id), keyVariables };
}

/** Log one warning when some catalog models have no usable endpoint; nothing when all do. */
export function warnUnusableModels(catalog: Catalog, logger: Logger): void {
  const { models, keyVariables } = unusableModels(catalog);
  if (models.length === 0) return;
  logger.warn(
    `${models.length} catalog model(s) have no usable endpoint (no provider key configured): ${models.join(', ')}`,
    {
      models,
      set_one_of: keyVariables,
    },
  );
}
