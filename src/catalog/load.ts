/**
 * Reads `config/models.yaml` (embeddings), `config/chat-models.yaml` (chat) and
 * `config/providers.yaml`, validates them against `schemas/catalog.*.json` and their
 * cross-references (providers exist, each provider's adapter speaks the model's kind, ids unique
 * across both model files), applies the `<SLUG>_BASE_URL` / `<SLUG>_API_KEY` overrides from the
 * config, and builds the immutable {@link Catalog}. Any problem fails the boot with every problem listed.
 * @module
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { providerEnvName, ConfigError, type Config } from '../config';
import { createAjv, toIssues } from '../validation/ajv';
import { fromRoot } from '../paths';
import { Catalog } from './catalog';
import {
  buildChatEndpoint,
  buildEmbeddingsEndpoint,
  tooFinePrices,
  type ChatEndpointYaml,
  type EmbeddingsEndpointYaml,
} from './build-endpoint';
import { toModelWire } from './wire';
import { sampleEndpoint, toWildcard, type Wildcard, type WildcardYaml } from './wildcard';
import type { AwsCredentials, CatalogModel, Endpoint, ModelKind, ProviderInfo, ProviderKey } from './types';
import { DEFAULT_BEDROCK_REGION } from '../providers/bedrock/api';

interface ProviderYaml {
  slug: string;
  name: string;
  adapter: string;
  base_url: string;
  api_key?: string | null;
  api_keys?: Array<string | { key: string; weight?: number }>;
  api_version?: string;
  api_style?: 'deployments' | 'v1';
  region?: string;
  timeout_ms?: number;
  base64_passthrough?: boolean;
  responses?: boolean;
  wildcard?: WildcardYaml;
}

interface ModelYaml<E> {
  id: string;
  name: string;
  created: number;
  description?: string;
  context_length: number;
  hugging_face_id?: string | null;
  tokenizer?: string;
  instruct_type?: string | null;
  distillable?: boolean;
  permaslug?: string;
  public?: boolean;
  aliases?: string[];
  endpoints: E[];
}

/** The wire adapters registered for each kind of model (a provider must speak the kind of every model it serves). */
export interface CatalogAdapters {
  embeddings: ReadonlySet<string>;
  chat: ReadonlySet<string>;
}

type Which = 'providers' | 'models' | 'chat-models';

const ajv = createAjv(false);
const schema = (name: string): object =>
  JSON.parse(readFileSync(fromRoot('schemas', `catalog.${name}.json`), 'utf8')) as object;
// The models schema first: the chat schema shares its price definition (`catalog.models#/$defs/price`);
// then the chat schema, whose endpoint pricing and parameters a provider's wildcard shares.
const modelsValidator = ajv.compile(schema('models'));
const chatModelsValidator = ajv.compile(schema('chat-models'));
const validators = {
  providers: ajv.compile(schema('providers')),
  models: modelsValidator,
  'chat-models': chatModelsValidator,
};

function readFile(file: string, which: Which, problems: string[]): unknown {
  const full = path.isAbsolute(file) ? file : fromRoot(file);
  try {
    const data: unknown = parseYaml(readFileSync(full, 'utf8'));
    const validate = validators[which];
    if (!validate(data)) {
      for (const issue of toIssues(path.basename(full), validate.errors))
        problems.push(`${issue.path} ${issue.message}`);
      return undefined;
    }
    return data;
  } catch (err) {
    problems.push(`${full}: ${(err as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

/** The API version Azure OpenAI requests name when neither YAML nor `<SLUG>_API_VERSION` sets one (a GA version). */
export const DEFAULT_AZURE_API_VERSION = '2024-10-21';

function buildProvider(p: ProviderYaml, config: Config): ProviderInfo {
  const env = config.providers[providerEnvName(p.slug)] ?? {};
  // `api_key: null` in the YAML marks a provider that needs no key (a local Ollama/vLLM/TEI).
  const needsKey = p.api_key !== null;
  const keys = keyPool(
    env.apiKeys ?? (env.apiKey ? [env.apiKey] : undefined) ?? p.api_keys ?? (p.api_key ? [p.api_key] : []),
  );
  // The standard AWS variables are every process's; only a Bedrock provider signs with them.
  const aws = p.adapter === 'bedrock' ? awsCredentials(config) : null;
  const entra = env.entraToken ? { token: env.entraToken } : env.entraTokenFile ? { file: env.entraTokenFile } : null;
  const region =
    env.region ?? p.region ?? config.aws.region ?? (p.adapter === 'bedrock' ? DEFAULT_BEDROCK_REGION : null);
  return {
    slug: p.slug,
    name: p.name,
    adapter: p.adapter,
    // A base URL may name the region (`https://bedrock-runtime.{region}.amazonaws.com`).
    baseUrl: (env.baseUrl ?? p.base_url).replace(/\/+$/, '').replace('{region}', region ?? '{region}'),
    keys,
    configured: !needsKey || keys.length > 0 || aws !== null || entra !== null,
    apiVersion: env.apiVersion ?? p.api_version ?? (p.adapter === 'azure' ? DEFAULT_AZURE_API_VERSION : null),
    apiStyle: p.api_style ?? 'deployments',
    region,
    aws,
    entra,
    timeoutMs: p.timeout_ms ?? null,
    base64Passthrough: p.base64_passthrough ?? false,
    responses: p.adapter === 'openai' && (env.responses ?? p.responses ?? false),
  };
}

/** Keys as given (strings, or `{key, weight}`) → the pool's entries, labelled by position. */
function keyPool(given: ReadonlyArray<string | { key: string; weight?: number }>): ProviderKey[] {
  return given.map((k, i) => ({
    label: `key-${i + 1}`,
    secret: typeof k === 'string' ? k : k.key,
    weight: typeof k === 'string' ? 1 : (k.weight ?? 1),
  }));
}

/** Static credentials from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` (both, or none). */
function awsCredentials(config: Config): AwsCredentials | null {
  const { accessKeyId, secretAccessKey, sessionToken } = config.aws;
  return accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey, sessionToken } : null;
}

/** Builds the models of one file, adding its problems to the shared list. */
class ModelBuilder {
  readonly models: CatalogModel[] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly providers: ReadonlyMap<string, ProviderInfo>,
    private readonly adapters: CatalogAdapters,
    private readonly problems: string[],
  ) {}

  add<E extends { provider: string }>(
    kind: ModelKind,
    m: ModelYaml<E>,
    build: (modelId: string, modelContext: number, e: E, provider: ProviderInfo) => Endpoint,
  ): void {
    const where = kind === 'chat' ? 'chat-models' : 'models';
    if (this.seen.has(m.id.toLowerCase()))
      this.problems.push(`${where}: duplicate id ${m.id} (ids are unique across models.yaml and chat-models.yaml)`);
    this.seen.add(m.id.toLowerCase());
    const endpoints: Endpoint[] = [];
    for (const e of m.endpoints) {
      const provider = this.providers.get(e.provider);
      if (!provider) {
        this.problems.push(`${where}.${m.id}: unknown provider "${e.provider}"`);
        continue;
      }
      if (!this.adapters[kind].has(provider.adapter)) {
        this.problems.push(
          `${where}.${m.id}.endpoints.${e.provider}: adapter "${provider.adapter}" serves no ${kind} models (${kind} adapters: ${[...this.adapters[kind]].join(', ')})`,
        );
        continue;
      }
      const endpoint = build(m.id, m.context_length, e, provider);
      for (const issue of tooFinePrices(endpoint))
        this.problems.push(`${where}.${m.id}.endpoints.${e.provider}.pricing: ${issue}`);
      endpoints.push(endpoint);
    }
    if (endpoints.length === 0) return;
    const facts = {
      id: m.id,
      kind,
      name: m.name,
      created: m.created,
      description: m.description ?? '',
      contextLength: m.context_length,
      huggingFaceId: m.hugging_face_id ?? null,
      tokenizer: m.tokenizer ?? 'Other',
      instructType: m.instruct_type ?? null,
      distillable: m.distillable ?? true,
      endpoints,
      permaslug: m.permaslug ?? m.id,
      public: m.public ?? true,
    };
    for (const alias of m.aliases ?? []) {
      if (this.seen.has(alias.toLowerCase()))
        this.problems.push(`${where}.${m.id}.aliases: ${alias} already names a model or another model's alias`);
      this.seen.add(alias.toLowerCase());
    }
    const aliases = m.aliases ? { aliases: [...m.aliases] } : {};
    this.models.push({ ...facts, ...aliases, wire: toModelWire(facts) });
  }
}

/**
 * Load and validate the catalog named by `config.catalog`.
 * @param adapters - names of the registered wire adapters per kind (a provider naming none of them,
 *   or serving a model of a kind its adapter does not speak, fails the boot)
 * @throws ConfigError listing every problem
 */
export function loadCatalog(config: Config, adapters: CatalogAdapters): Catalog {
  const problems: string[] = [];
  const pf = readFile(config.catalog.providersFile, 'providers', problems) as { providers: ProviderYaml[] } | undefined;
  const mf = readFile(config.catalog.modelsFile, 'models', problems) as
    { models: Array<ModelYaml<EmbeddingsEndpointYaml>>; other_models?: string[] } | undefined;
  const cf = readFile(config.catalog.chatModelsFile, 'chat-models', problems) as
    { models: Array<ModelYaml<ChatEndpointYaml>> } | undefined;
  if (!pf || !mf || !cf) throw new ConfigError(problems);

  const known = new Set([...adapters.embeddings, ...adapters.chat]);
  const providers = new Map<string, ProviderInfo>();
  for (const p of pf.providers) {
    if (providers.has(p.slug)) problems.push(`providers: duplicate slug ${p.slug}`);
    if (!known.has(p.adapter))
      problems.push(`providers.${p.slug}.adapter: unknown adapter "${p.adapter}" (known: ${[...known].join(', ')})`);
    providers.set(p.slug, buildProvider(p, config));
  }
  const wildcards = buildWildcards(pf.providers, providers, adapters, problems);
  const builder = new ModelBuilder(providers, adapters, problems);
  for (const m of mf.models) builder.add('embeddings', m, buildEmbeddingsEndpoint);
  for (const m of cf.models) builder.add('chat', m, buildChatEndpoint);
  if (problems.length > 0) throw new ConfigError(problems);
  return new Catalog(builder.models, [...providers.values()], mf.other_models ?? [], wildcards);
}

/** The providers' wildcards: each pattern once, on a provider that speaks chat, its default prices exact. */
function buildWildcards(
  entries: readonly ProviderYaml[],
  providers: ReadonlyMap<string, ProviderInfo>,
  adapters: CatalogAdapters,
  problems: string[],
): Wildcard[] {
  const wildcards: Wildcard[] = [];
  for (const p of entries) {
    if (!p.wildcard) continue;
    const where = `providers.${p.slug}.wildcard`;
    const provider = providers.get(p.slug)!;
    if (!adapters.chat.has(provider.adapter))
      problems.push(`${where}: adapter "${provider.adapter}" serves no chat models, and a wildcard names chat models`);
    const w = toWildcard(p.wildcard, provider);
    if (wildcards.some((o) => o.prefix === w.prefix))
      problems.push(`${where}: ${w.pattern} is another provider's wildcard too`);
    const sample = sampleEndpoint(w);
    for (const issue of sample ? tooFinePrices(sample) : []) problems.push(`${where}.pricing: ${issue}`);
    wildcards.push(w);
  }
  return wildcards;
}
