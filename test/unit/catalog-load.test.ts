/**
 * The catalog loader over both model files: the shipped chat catalog loads with its prices
 * converted to exact per-token strings; the chat file is validated by its schema; an id in both
 * files, a chat model on an embeddings-only adapter, an embeddings model on a chat-only adapter and
 * a cache price finer than money are refused at boot; and the Catalog resolves each kind only
 * for its own operation.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loadConfig, type ConfigOverrides } from '../../src/config';
import { loadCatalog } from '../../src/catalog/load';
import { ADAPTER_NAMES } from '../../src/providers/adapter-names';
import { NotFoundError, ValidationError } from '../../src/errors';
import { fromRoot } from '../../src/paths';
import { USD_DECIMALS } from '../../src/catalog/usd';
import { tempDir } from '../helpers/temp-dir';

const dir = tempDir('chat-catalog-');
let n = 0;
function file(text: string): string {
  const full = path.join(dir, `f${n++}.yaml`);
  writeFileSync(full, text);
  return full;
}
const load = (catalog: ConfigOverrides['catalog'] = {}) => loadCatalog(loadConfig({}, { catalog }), ADAPTER_NAMES);
const chatModel = (id: string, provider: string, pricing = '{ prompt: "1", completion: "2" }') =>
  `models:\n  - id: ${id}\n    name: X\n    created: 1\n    context_length: 1000\n    endpoints:\n      - provider: ${provider}\n        upstream_model: x\n        pricing: ${pricing}\n`;
/** The issues of the ValidationError `run` throws. */
function issuesOf(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    if (err instanceof ValidationError) return err.issues;
    throw err;
  }
  throw new Error('no error');
}
/** The problems a failed load lists. */
function problemsOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the catalog loaded');
}

test('the shipped chat catalog loads: kind chat, per-token prices, cache prices where listed, limits and modalities', () => {
  const catalog = load();
  const shipped = parseYaml(readFileSync(fromRoot('config', 'chat-models.yaml'), 'utf8')) as {
    models: Array<{ id: string }>;
  };
  expect(catalog.chatModels.map((m) => m.id)).toEqual(shipped.models.map((m) => m.id));
  expect(catalog.chatModels.every((m) => m.kind === 'chat')).toBe(true);
  expect(catalog.embeddingsModels.length + catalog.chatModels.length).toBe(catalog.models.length);

  const sonnet = catalog.resolveChat('Anthropic/Claude-Sonnet-4').endpoints[0]!;
  expect(sonnet.pricing).toMatchObject({
    prompt: 0.000003,
    completion: 0.000015,
    cacheRead: 3e-7,
    cacheWrite: 0.00000375,
  });
  expect(sonnet.pricing.text).toEqual({
    prompt: '0.000003',
    completion: '0.000015',
    image: '0',
    request: '0',
    input_cache_read: '0.0000003',
    input_cache_write: '0.00000375',
  });
  expect(sonnet).toMatchObject({ maxCompletionTokens: 64000, contextLength: 200000 });
  expect([...sonnet.outputModalities]).toEqual(['text']);
  expect(sonnet.parameters.has('response_format')).toBe(false);

  const mini = catalog.resolveChat('openai/gpt-4o-mini').endpoints[0]!;
  expect(mini.pricing.text).toEqual({
    prompt: '0.00000015',
    completion: '0.0000006',
    image: '0',
    request: '0',
    input_cache_read: '0.000000075',
  });
  expect(mini.pricing.cacheWrite).toBeNull();
  expect([...mini.inputModalities]).toEqual(['text', 'image', 'file']);

  // Every shipped price is exact at the precision costs are rounded to.
  for (const e of catalog.models.flatMap((m) => m.endpoints)) {
    for (const text of Object.values(e.pricing.text))
      expect((text.split('.')[1] ?? '').length).toBeLessThanOrEqual(USD_DECIMALS);
  }
  // The new providers are there, each on its adapter.
  expect(
    Object.fromEntries(
      catalog.providers
        .filter((p) => ['anthropic', 'groq', 'fireworks'].includes(p.slug))
        .map((p) => [p.slug, [p.adapter, p.baseUrl]]),
    ),
  ).toEqual({
    anthropic: ['anthropic', 'https://api.anthropic.com/v1'],
    groq: ['openai', 'https://api.groq.com/openai/v1'],
    fireworks: ['openai', 'https://api.fireworks.ai/inference/v1'],
  });
});

test('the chat file is validated by its schema, every problem listed', () => {
  const bad = file(
    'models:\n  - id: a/b\n    name: X\n    created: 1\n    context_length: 1000\n    endpoints:\n      - provider: openai\n        upstream_model: x\n        pricing: { prompt: "1" }\n        supported_parameters: [dimensions]\n        output_modalities: [embeddings]\n',
  );
  const message = problemsOf(() => load({ chatModelsFile: bad }));
  expect(message).toMatch(/pricing\.completion/);
  expect(message).toMatch(/supported_parameters\.0 must be one of tools/);
  expect(message).toMatch(/output_modalities\.0 must be one of text, image, audio/);
  expect(
    problemsOf(() => load({ chatModelsFile: file(chatModel('a/b', 'openai', '{ prompt: "-1", completion: "1" }')) })),
  ).toMatch(/pricing\.prompt/);
});

test('an id in both model files is refused', () => {
  const message = problemsOf(() =>
    load({ chatModelsFile: file(chatModel('openai/Text-Embedding-3-Small', 'openai')) }),
  );
  expect(message).toMatch(
    /chat-models: duplicate id openai\/Text-Embedding-3-Small \(ids are unique across models\.yaml and chat-models\.yaml\)/,
  );
});

test('a model on a provider whose adapter does not speak its kind is refused', () => {
  const chatOnCohere = problemsOf(() => load({ chatModelsFile: file(chatModel('a/chat', 'cohere')) }));
  expect(chatOnCohere).toMatch(
    /chat-models\.a\/chat\.endpoints\.cohere: adapter "cohere" serves no chat models \(chat adapters: openai, anthropic(, [a-z]+)*\)/,
  );
  const embeddingsOnAnthropic = file(
    'models:\n  - id: a/emb\n    name: X\n    created: 1\n    context_length: 10\n    endpoints:\n      - provider: anthropic\n        upstream_model: x\n        pricing: { prompt: "1" }\n',
  );
  expect(problemsOf(() => load({ modelsFile: embeddingsOnAnthropic }))).toMatch(
    /models\.a\/emb\.endpoints\.anthropic: adapter "anthropic" serves no embeddings models/,
  );
});

test('a cache price finer than a nano-dollar per token is refused, naming it', () => {
  const fine = file(chatModel('a/b', 'openai', '{ prompt: "1", completion: "2", input_cache_read: "0.0375" }'));
  expect(problemsOf(() => load({ chatModelsFile: fine }))).toMatch(
    /chat-models\.a\/b\.endpoints\.openai\.pricing: input_cache_read 0\.0000000375 USD has more than 9 decimals/,
  );
});

test('resolveEmbeddings serves embeddings only, resolveChat chat only; find finds either', () => {
  const catalog = load();
  expect(catalog.resolveEmbeddings('openai/text-embedding-3-small').kind).toBe('embeddings');
  expect(() => catalog.resolveEmbeddings('openai/gpt-4o')).toThrow(ValidationError);
  expect(issuesOf(() => catalog.resolveEmbeddings('openai/gpt-4o'))).toEqual([
    {
      path: 'body.model',
      message: 'openai/gpt-4o is not an embeddings model; use an embeddings model from GET /embeddings/models',
    },
  ]);
  // other_models still gives the 400 for a model served nowhere here.
  expect(() => catalog.resolveEmbeddings('google/gemini-2.5-flash')).toThrow(ValidationError);

  expect(catalog.resolveChat('openai/gpt-4o').kind).toBe('chat');
  expect(issuesOf(() => catalog.resolveChat('openai/text-embedding-3-small'))).toEqual([
    {
      path: 'body.model',
      message: 'openai/text-embedding-3-small is not a chat model; use a chat model from GET /models',
    },
  ]);
  const unknown = (() => {
    try {
      catalog.resolveChat('nobody/nothing');
    } catch (err) {
      return err as NotFoundError;
    }
  })();
  expect(unknown).toBeInstanceOf(NotFoundError);
  expect(unknown!.metadata).toMatchObject({ model: 'nobody/nothing', models_list: '/api/v1/models' });

  expect(catalog.find('META-LLAMA/llama-3.3-70b-instruct')?.endpoints.map((e) => e.provider.slug)).toEqual([
    'deepinfra',
    'together',
    'groq',
    'fireworks',
    'amazon-bedrock',
  ]);
  expect(catalog.find('baai/bge-m3')?.kind).toBe('embeddings');
});

test('`responses`: the shipped OpenAI provider serves /responses, <SLUG>_RESPONSES overrides it, other adapters are refused it', () => {
  const openai = (env: Record<string, string>) =>
    loadCatalog(loadConfig(env), ADAPTER_NAMES).resolveChat('openai/gpt-4.1-mini').endpoints[0]!.provider;
  expect(openai({}).responses).toBe(true);
  expect(openai({ OPENAI_RESPONSES: 'false' }).responses).toBe(false);
  const shipped = loadCatalog(loadConfig({}), ADAPTER_NAMES);
  expect(shipped.resolveChat('anthropic/claude-sonnet-4').endpoints[0]!.provider.responses).toBe(false);
  expect(() => loadConfig({ OPENAI_RESPONSES: 'yes' })).toThrow(/OPENAI_RESPONSES: must be true or false/);
  const yaml = readFileSync(fromRoot('config', 'providers.yaml'), 'utf8').replace(
    'adapter: anthropic\n',
    'adapter: anthropic\n    responses: true\n',
  );
  expect(problemsOf(() => load({ providersFile: file(yaml) }))).toMatch(/adapter/);
});
