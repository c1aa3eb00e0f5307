/**
 * Models the catalog does not list: a provider of `config/providers.yaml` may declare a wildcard
 * (`openai/*`) with a default price. A chat model name under it that the catalog lacks is served
 * by that provider (its upstream name is the part after the slash) at that price, as a model of
 * its own built for the request; it is never listed by GET /models. Without a default price the
 * name stays a 404, since what it would cost could not be known.
 * @module
 */
import { NotFoundError } from '../errors';
import { buildChatEndpoint, type ChatEndpointYaml } from './build-endpoint';
import { toModelWire } from './wire';
import type { CatalogModel, Endpoint, ProviderInfo } from './types';

/** A provider entry's `wildcard` as written in the YAML (see the header of config/providers.yaml). */
export interface WildcardYaml {
  pattern: string;
  pricing?: ChatEndpointYaml['pricing'];
  context_length?: number;
  max_completion_tokens?: number;
  supported_parameters?: ChatEndpointYaml['supported_parameters'];
}

/** One provider's wildcard, ready to build models from. */
export interface Wildcard {
  /** As written: `openai/*`. */
  pattern: string;
  /** The lower-case part before the `*`: `openai/`. */
  prefix: string;
  provider: ProviderInfo;
  /** The endpoint entry every name under it gets (its upstream name aside); null without a default price. */
  entry: Omit<ChatEndpointYaml, 'upstream_model'> | null;
}

/** The wildcard of `provider` from its YAML. */
export function toWildcard(w: WildcardYaml, provider: ProviderInfo): Wildcard {
  const { pattern, pricing, context_length, max_completion_tokens, supported_parameters } = w;
  const entry: Omit<ChatEndpointYaml, 'upstream_model'> | null = pricing
    ? {
        provider: provider.slug,
        pricing,
        context_length,
        ...(max_completion_tokens !== undefined ? { max_completion_tokens } : {}),
        ...(supported_parameters ? { supported_parameters } : {}),
      }
    : null;
  return { pattern, prefix: pattern.slice(0, -1).toLowerCase(), provider, entry };
}

/** The endpoint a wildcard's default price makes, for checking its prices at boot. */
export function sampleEndpoint(w: Wildcard): Endpoint | null {
  return w.entry ? wildcardEndpoint(w, `${w.prefix}model`) : null;
}

function wildcardEndpoint(w: Wildcard, name: string): Endpoint {
  const entry = w.entry!;
  const e = buildChatEndpoint(
    name,
    entry.context_length!,
    { ...entry, upstream_model: name.slice(w.prefix.length) },
    w.provider,
  );
  return { ...e, wildcard: w.pattern };
}

/**
 * The model `name` under one of `wildcards`, or null when none covers it.
 * @param asked - the name as the client sent it (with a variant suffix, perhaps), for the 404
 * @throws NotFoundError (404) when the wildcard covering it has no default price
 */
export function wildcardModel(
  wildcards: readonly Wildcard[],
  name: string,
  asked: string,
  listPath: string,
): CatalogModel | null {
  const key = name.toLowerCase();
  const w = wildcards.find((c) => key.startsWith(c.prefix) && key.length > c.prefix.length);
  if (!w) return null;
  if (!w.entry)
    throw new NotFoundError(undefined, {
      model: asked,
      reason: `no model named ${asked}; ${w.pattern} of ${w.provider.name} has no default price, so what it would cost could not be known; the models served are listed at ${listPath}`,
      models_list: listPath,
    });
  // The pattern's part as written in the YAML, the model's part as sent (upstream names may be case-sensitive).
  const id = `${w.prefix}${name.slice(w.prefix.length)}`;
  const endpoint = wildcardEndpoint(w, id);
  const facts = {
    id,
    kind: 'chat' as const,
    name: id,
    created: 0,
    description: `Not in the catalog: served by ${w.provider.name} under ${w.pattern}, priced by its default.`,
    contextLength: endpoint.contextLength,
    huggingFaceId: null,
    tokenizer: 'Other',
    instructType: null,
    // Unknown, so a request that must be distillable is not sent to it.
    distillable: false,
    endpoints: [endpoint],
    permaslug: id,
    // A caller-chosen name: counted only in the rankings' `other`.
    public: false,
  };
  return { ...facts, wire: toModelWire(facts) };
}
