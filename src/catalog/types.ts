/**
 * The catalog as the gateway uses it at run time: embeddings and chat models, their provider
 * endpoints (price, limits, capabilities, data policy) and the providers they live on. Built once
 * at boot from `config/models.yaml`, `config/chat-models.yaml` and `config/providers.yaml`;
 * immutable afterwards.
 * @module
 */

/** Input modalities an endpoint may accept. */
export type Modality = 'text' | 'image' | 'audio' | 'video' | 'file';

/** What a model is for: which operation routes to it. */
export type ModelKind = 'embeddings' | 'chat';

/** Output modalities of a model (`embeddings` for an embeddings model). */
export type OutputModality = 'text' | 'image' | 'audio' | 'embeddings';

/** Chat request parameters an endpoint may or may not honour (the wire's `supported_parameters`). */
export type ChatParameter =
  | 'tools'
  | 'tool_choice'
  | 'parallel_tool_calls'
  | 'response_format'
  | 'structured_outputs'
  | 'seed'
  | 'logprobs'
  | 'top_logprobs'
  | 'stop'
  | 'temperature'
  | 'top_p'
  | 'top_k'
  | 'max_tokens'
  | 'frequency_penalty'
  | 'presence_penalty'
  | 'repetition_penalty'
  | 'logit_bias'
  | 'min_p'
  | 'reasoning'
  | 'include_reasoning'
  | 'prediction'
  | 'service_tier'
  | 'prompt_cache_key'
  | 'verbosity'
  | 'web_search_options'
  | 'top_a'
  | 'n';

/** Request parameters an endpoint may or may not honour (decides `require_parameters`). */
export type RoutableParameter = 'dimensions' | 'input_type' | ChatParameter;

/** Quantization values of the provider object's `quantizations` filter. */
export type Quantization =
  'int4' | 'int8' | 'fp4' | 'mxfp4' | 'nvfp4' | 'fp6' | 'fp8' | 'mxfp8' | 'fp16' | 'bf16' | 'fp32' | 'unknown';

/** One key of a provider's pool: its secret, how often it is picked, and a label that never shows the secret. */
export interface ProviderKey {
  /** `key-1`, `key-2` … by position: what `/providers`, metrics and logs call it. */
  label: string;
  secret: string;
  /** Relative share of the picks (default 1). */
  weight: number;
}

/** Static AWS credentials (the standard variables). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string | null;
}

/** One upstream provider: where it is, how to talk to it, how to authenticate. */
export interface ProviderInfo {
  /** Lower-case slug, e.g. `deepinfra`; used in `provider.order/only/ignore` and metrics. */
  slug: string;
  /** Display name, e.g. `DeepInfra`; returned as the response's `provider`. */
  name: string;
  /** Wire format; a key of the adapter registry. */
  adapter: string;
  /** Base URL without trailing slash (env override applied). */
  baseUrl: string;
  /**
   * The provider's keys, used in turn (a pool: `<SLUG>_API_KEYS`, or YAML `api_keys`; one key:
   * `<SLUG>_API_KEY`); empty when it needs none or has none. The key pool picks one per attempt.
   */
  keys: readonly ProviderKey[];
  /** Whether the provider can be used at all (it needs a credential and has none → false). */
  configured: boolean;
  /** The API version a request names, where the wire format has one (Azure's `api-version`). */
  apiVersion: string | null;
  /** Which URL scheme an Azure OpenAI provider uses: per-deployment URLs, or the v1 API. */
  apiStyle: 'deployments' | 'v1';
  /** The cloud region, where the wire format signs for one (Bedrock: `<SLUG>_REGION`, else `AWS_REGION`). */
  region: string | null;
  /** AWS credentials for SigV4 (only `adapter: bedrock` providers get them); null when unset. */
  aws: AwsCredentials | null;
  /** A Microsoft Entra bearer token (Azure), as given or as a file re-read when it changes. */
  entra: { token: string } | { file: string } | null;
  /** Per-attempt timeout for this provider, overriding `upstream.attemptTimeoutMs`. */
  timeoutMs: number | null;
  /** The upstream can answer `encoding_format: base64` itself, so its strings pass through untouched. */
  base64Passthrough: boolean;
  /** The upstream serves OpenAI's `/responses` (YAML `responses`, `<SLUG>_RESPONSES`): the Responses door passes through to it. */
  responses: boolean;
}

/** Prices in USD; per token for prompt and completion, per image, per request. */
export interface EndpointPricing {
  prompt: number;
  /** Per completion token (0 for embeddings). */
  completion: number;
  image: number;
  request: number;
  /** Per prompt token read from the provider's prompt cache; null where the provider has no such price (then `prompt`). */
  cacheRead: number | null;
  /** Per prompt token written to the provider's prompt cache; null where there is no such price (then `prompt`). */
  cacheWrite: number | null;
  /** The same prices as the API's decimal strings (per token / image / request); the cache prices only where set. */
  text: {
    prompt: string;
    completion: string;
    image: string;
    request: string;
    input_cache_read?: string;
    input_cache_write?: string;
  };
}

/** How an Anthropic or Gemini endpoint takes reasoning (`thinking` in chat-models.yaml). */
export type ThinkingStyle = 'budget' | 'adaptive' | 'always';

/** One way to serve a model: a provider plus that provider's name, price and limits for it. */
export interface Endpoint {
  /** Stable id `<provider>:<model>`; the circuit breaker's key. */
  id: string;
  modelId: string;
  provider: ProviderInfo;
  upstreamModel: string;
  pricing: EndpointPricing;
  contextLength: number;
  /** Most completion tokens one answer may have (chat); null when only the context bounds it (and for embeddings). */
  maxCompletionTokens: number | null;
  inputModalities: ReadonlySet<Modality>;
  outputModalities: ReadonlySet<OutputModality>;
  tokenInput: boolean;
  parameters: ReadonlySet<RoutableParameter>;
  quantization: Quantization;
  retainsData: boolean;
  trainsOnData: boolean;
  zdr: boolean;
  /** Typical tokens/s and latency; used by `sort` and the soft `preferred_*` preferences. */
  throughput: number | null;
  latencyMs: number | null;
  /** How Claude takes reasoning: `adaptive` (Claude 4.6 and later: `thinking: adaptive` with an effort), `always` (adaptive and never off: Claude 5.5), else a thinking budget; on Gemini, `adaptive` / `always` is Gemini 3's `thinkingLevel`, else Gemini 2.5's budget. */
  thinking?: ThinkingStyle;
  /** The provider wildcard (`openai/*`) this endpoint was made from for a model the catalog lacks; its prices are the wildcard's defaults. */
  wildcard?: string;
}

/** One model of the catalog. */
export interface CatalogModel {
  id: string;
  /** Embeddings models serve POST /embeddings only, chat models POST /chat/completions only. */
  kind: ModelKind;
  name: string;
  created: number;
  description: string;
  contextLength: number;
  huggingFaceId: string | null;
  tokenizer: string;
  instructType: string | null;
  distillable: boolean;
  /** The model's name in the rankings dataset (`model_permaslug`); defaults to its id. */
  permaslug: string;
  /** Whether the rankings dataset may name it; a non-public model counts only in `other`. */
  public: boolean;
  /** Other names the model answers to (`claude-sonnet-4-5`); see `Catalog.resolveChat`. */
  aliases?: readonly string[];
  /** In catalog order. */
  endpoints: readonly Endpoint[];
  /** The model's list object (`/embeddings/models`, `/models`), built once. */
  wire: Readonly<Record<string, unknown>>;
}
