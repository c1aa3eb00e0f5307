/**
 * One catalog endpoint from its YAML entry: prices per 1M tokens turned into the per-token decimal
 * strings of the API (and their numbers), limits, modalities, parameters and data policy, with the
 * defaults of its kind. Embeddings endpoints come from `config/models.yaml`, chat endpoints from
 * `config/chat-models.yaml`; the shapes differ only in what a chat answer adds (completion and
 * prompt-cache prices, completion limit, output modalities).
 * @module
 */
import { shiftDecimal } from './decimal';
import { USD_DECIMALS } from './usd';
import type {
  ChatParameter,
  Endpoint,
  EndpointPricing,
  Modality,
  OutputModality,
  ProviderInfo,
  Quantization,
  RoutableParameter,
  ThinkingStyle,
} from './types';

/** A price as written in the YAML: a decimal string or a number. */
export type Price = string | number;

/** What both kinds of endpoint entry share. */
interface EndpointYamlBase {
  provider: string;
  upstream_model: string;
  context_length?: number;
  quantization?: Quantization;
  retains_data?: boolean;
  trains_on_data?: boolean;
  zdr?: boolean;
  throughput?: number;
  latency_ms?: number;
}

/** An endpoint of `config/models.yaml`. */
export interface EmbeddingsEndpointYaml extends EndpointYamlBase {
  pricing: { prompt: Price; image?: Price; request?: Price };
  input_modalities?: Modality[];
  token_input?: boolean;
  supported_parameters?: RoutableParameter[];
}

/** An endpoint of `config/chat-models.yaml`. */
export interface ChatEndpointYaml extends EndpointYamlBase {
  pricing: {
    prompt: Price;
    completion: Price;
    input_cache_read?: Price;
    input_cache_write?: Price;
    image?: Price;
    request?: Price;
  };
  max_completion_tokens?: number;
  thinking?: ThinkingStyle;
  input_modalities?: Modality[];
  output_modalities?: Array<Exclude<OutputModality, 'embeddings'>>;
  supported_parameters?: ChatParameter[];
}

/** Per-token text of a per-1M-tokens price. */
const perToken = (p: Price): string => shiftDecimal(p, 6);
/** The text of a per-image or per-request price. */
const perUnit = (p: Price | undefined): string => shiftDecimal(p ?? 0, 0);

function pricingOf(text: EndpointPricing['text']): EndpointPricing {
  return {
    prompt: Number(text.prompt),
    completion: Number(text.completion),
    image: Number(text.image),
    request: Number(text.request),
    cacheRead: text.input_cache_read === undefined ? null : Number(text.input_cache_read),
    cacheWrite: text.input_cache_write === undefined ? null : Number(text.input_cache_write),
    text,
  };
}

function common(modelId: string, modelContext: number, e: EndpointYamlBase, provider: ProviderInfo) {
  return {
    id: `${provider.slug}:${modelId}`,
    modelId,
    provider,
    upstreamModel: e.upstream_model,
    contextLength: e.context_length ?? modelContext,
    quantization: e.quantization ?? 'unknown',
    retainsData: e.retains_data ?? true,
    trainsOnData: e.trains_on_data ?? false,
    zdr: e.zdr ?? false,
    throughput: e.throughput ?? null,
    latencyMs: e.latency_ms ?? null,
  } as const;
}

/** An embeddings endpoint: prompt, image and request prices; output `embeddings`. */
export function buildEmbeddingsEndpoint(
  modelId: string,
  modelContext: number,
  e: EmbeddingsEndpointYaml,
  provider: ProviderInfo,
): Endpoint {
  const text = {
    prompt: perToken(e.pricing.prompt),
    completion: '0',
    image: perUnit(e.pricing.image),
    request: perUnit(e.pricing.request),
  };
  return {
    ...common(modelId, modelContext, e, provider),
    pricing: pricingOf(text),
    maxCompletionTokens: null,
    inputModalities: new Set(e.input_modalities ?? ['text']),
    outputModalities: new Set(['embeddings']),
    tokenInput: e.token_input ?? false,
    parameters: new Set(e.supported_parameters ?? []),
  };
}

/** A chat endpoint: completion and (where the provider has them) prompt-cache prices; output `text` unless listed. */
export function buildChatEndpoint(
  modelId: string,
  modelContext: number,
  e: ChatEndpointYaml,
  provider: ProviderInfo,
): Endpoint {
  const p = e.pricing;
  const text: EndpointPricing['text'] = {
    prompt: perToken(p.prompt),
    completion: perToken(p.completion),
    image: perUnit(p.image),
    request: perUnit(p.request),
  };
  if (p.input_cache_read !== undefined) text.input_cache_read = perToken(p.input_cache_read);
  if (p.input_cache_write !== undefined) text.input_cache_write = perToken(p.input_cache_write);
  return {
    ...common(modelId, modelContext, e, provider),
    pricing: pricingOf(text),
    maxCompletionTokens: e.max_completion_tokens ?? null,
    inputModalities: new Set(e.input_modalities ?? ['text']),
    outputModalities: new Set(e.output_modalities ?? ['text']),
    tokenInput: false,
    parameters: new Set(e.supported_parameters ?? []),
    ...(e.thinking ? { thinking: e.thinking } : {}),
  };
}

/**
 * The prices of `e` (per token, image, request; cache prices included) with more decimals than
 * money carries: a cost computed from such a price could not be exact at {@link USD_DECIMALS}.
 */
export function tooFinePrices(e: Endpoint): string[] {
  return Object.entries(e.pricing.text)
    .filter(([, text]) => (text.split('.')[1] ?? '').length > USD_DECIMALS)
    .map(
      ([name, text]) =>
        `${name} ${text} USD has more than ${USD_DECIMALS} decimals, the precision costs are rounded to`,
    );
}
