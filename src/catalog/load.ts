/**
 * Reads `config/models.yaml` and `config/providers.yaml`, validates them against
 * `schemas/catalog.*.json` and their cross-references (providers exist, adapters exist, ids
 * unique), applies the `<SLUG>_BASE_URL` / `<SLUG>_API_KEY` overrides from the config, and builds
 * the immutable {@link Catalog}. Any problem fails the boot with every problem listed.
 * @module
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { providerEnvName, ConfigError, type Config } from '../config';
import { createAjv, toIssues } from '../validation/ajv';
import { fromRoot } from '../paths';
import { Catalog } from './catalog';
import { shiftDecimal } from './decimal';
import { USD_DECIMALS } from './usd';
import { toModelWire } from './wire';
import type { CatalogModel, Endpoint, Modality, ProviderInfo, Quantization, RoutableParameter } from './types';

interface ProviderYaml {
  slug: string;
  name: string;
  adapter: string;
  base_url: string;
  api_key?: string | null;
  timeout_ms?: number;
  base64_passthrough?: boolean;
}

type Price = string | number;

interface EndpointYaml {
  provider: string;
  upstream_model: string;
  pricing: { prompt: Price; image?: Price; request?: Price };
  context_length?: number;
  input_modalities?: Modality[];
  token_input?: boolean;
  supported_parameters?: RoutableParameter[];
  quantization?: Quantization;
  retains_data?: boolean;
  trains_on_data?: boolean;
  zdr?: boolean;
  throughput?: number;
  latency_ms?: number;
}

interface ModelYaml {
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
  endpoints: EndpointYaml[];
}

const ajv = createAjv(false);
const validators = {
  providers: ajv.compile(JSON.parse(readFileSync(fromRoot('schemas', 'catalog.providers.json'), 'utf8'))),
  models: ajv.compile(JSON.parse(readFileSync(fromRoot('schemas', 'catalog.models.json'), 'utf8'))),
};

function readFile(file: string, which: 'providers' | 'models', problems: string[]): unknown {
  const full = path.isAbsolute(file) ? file : fromRoot(file);
  try {
    const data: unknown = parseYaml(readFileSync(full, 'utf8'));
    const validate = validators[which];
    if (!validate(data)) {
      for (const issue of toIssues(path.basename(full), validate.errors)) problems.push(`${issue.path} ${issue.message}`);
      return undefined;
    }
    return data;
  } catch (err) {
    problems.push(`${full}: ${(err as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

function buildProvider(p: ProviderYaml, config: Config): ProviderInfo {
  const env = config.providers[providerEnvName(p.slug)] ?? {};
  // `api_key: null` in the YAML marks a provider that needs no key (a local Ollama/vLLM/TEI).
  const needsKey = p.api_key !== null;
  const apiKey = env.apiKey ?? p.api_key ?? null;
  return {
    slug: p.slug,
    name: p.name,
    adapter: p.adapter,
    baseUrl: (env.baseUrl ?? p.base_url).replace(/\/+$/, ''),
    apiKey,
    configured: !needsKey || apiKey !== null,
    timeoutMs: p.timeout_ms ?? null,
    base64Passthrough: p.base64_passthrough ?? false,
  };
}

function buildEndpoint(modelId: string, modelContext: number, e: EndpointYaml, provider: ProviderInfo): Endpoint {
  const text = {
    prompt: shiftDecimal(e.pricing.prompt, 6),
    completion: '0',
    image: shiftDecimal(e.pricing.image ?? 0, 0),
    request: shiftDecimal(e.pricing.request ?? 0, 0),
  };
  return {
    id: `${provider.slug}:${modelId}`,
    modelId,
    provider,
    upstreamModel: e.upstream_model,
    pricing: { prompt: Number(text.prompt), completion: 0, image: Number(text.image), request: Number(text.request), cacheRead: null, cacheWrite: null, text },
    contextLength: e.context_length ?? modelContext,
    maxCompletionTokens: null,
    inputModalities: new Set(e.input_modalities ?? ['text']),
    outputModalities: new Set(['embeddings']),
    tokenInput: e.token_input ?? false,
    parameters: new Set(e.supported_parameters ?? []),
    quantization: e.quantization ?? 'unknown',
    retainsData: e.retains_data ?? true,
    trainsOnData: e.trains_on_data ?? false,
    zdr: e.zdr ?? false,
    throughput: e.throughput ?? null,
    latencyMs: e.latency_ms ?? null,
  };
}

/** The prices of `e` (per token, image, request) with more decimals than money carries. */
function tooFinePrices(e: Endpoint): string[] {
  return Object.entries(e.pricing.text)
    .filter(([, text]) => (text.split('.')[1] ?? '').length > USD_DECIMALS)
    .map(([name, text]) => `${name} ${text} USD has more than ${USD_DECIMALS} decimals, the precision costs are rounded to`);
}

/**
 * Load and validate the catalog named by `config.catalog`.
 * @param adapters - names of the registered wire adapters (a provider naming another fails the boot)
 * @throws ConfigError listing every problem
 */
export function loadCatalog(config: Config, adapters: ReadonlySet<string>): Catalog {
  const problems: string[] = [];
  const pf = readFile(config.catalog.providersFile, 'providers', problems) as { providers: ProviderYaml[] } | undefined;
  const mf = readFile(config.catalog.modelsFile, 'models', problems) as { models: ModelYaml[]; other_models?: string[] } | undefined;
  if (!pf || !mf) throw new ConfigError(problems);

  const providers = new Map<string, ProviderInfo>();
  for (const p of pf.providers) {
    if (providers.has(p.slug)) problems.push(`providers: duplicate slug ${p.slug}`);
    if (!adapters.has(p.adapter)) problems.push(`providers.${p.slug}.adapter: unknown adapter "${p.adapter}" (known: ${[...adapters].join(', ')})`);
    providers.set(p.slug, buildProvider(p, config));
  }
  const models: CatalogModel[] = [];
  const seen = new Set<string>();
  for (const m of mf.models) {
    if (seen.has(m.id.toLowerCase())) problems.push(`models: duplicate id ${m.id}`);
    seen.add(m.id.toLowerCase());
    const endpoints: Endpoint[] = [];
    for (const e of m.endpoints) {
      const provider = providers.get(e.provider);
      if (!provider) problems.push(`models.${m.id}: unknown provider "${e.provider}"`);
      else {
        const endpoint = buildEndpoint(m.id, m.context_length, e, provider);
        for (const issue of tooFinePrices(endpoint)) problems.push(`models.${m.id}.endpoints.${e.provider}.pricing: ${issue}`);
        endpoints.push(endpoint);
      }
    }
    if (endpoints.length === 0) continue;
    const facts = {
      id: m.id,
      kind: 'embeddings' as const,
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
    models.push({ ...facts, wire: toModelWire(facts) });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return new Catalog(models, [...providers.values()], mf.other_models ?? []);
}
