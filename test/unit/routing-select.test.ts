/**
 * Candidate selection and its helpers as pure functions over the default catalog: provider
 * matching, price conversion, unconfigured providers, and the `<SLUG>_BASE_URL` /
 * `<SLUG>_API_KEY` environment overrides.
 */
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, providerEnvName } from '../../src/config';
import { loadCatalog } from '../../src/catalog/load';
import { shiftDecimal } from '../../src/catalog/decimal';
import { ADAPTER_NAMES } from '../../src/providers/adapter-names';
import { selectCandidates, type RequestNeeds } from '../../src/routing/select-candidates';
import { matchesProvider } from '../../src/routing/preferences';

const TEXT: RequestNeeds = { inputKind: 'text', modalities: new Set(['text']), parameters: new Set() };
const adapters = ADAPTER_NAMES;

test('slug → env name', () => {
  expect(providerEnvName('openai')).toBe('OPENAI');
  expect(providerEnvName('google-ai-studio')).toBe('GOOGLE_AI_STUDIO');
  expect(providerEnvName('deepinfra/turbo')).toBe('DEEPINFRA_TURBO');
});

test('<SLUG>_BASE_URL and <SLUG>_API_KEY override the catalog; providers without a key are not eligible', () => {
  const config = loadConfig({
    OPENAI_BASE_URL: 'http://127.0.0.1:1/v1/',
    OPENAI_API_KEY: 'sk-o',
    DEEPINFRA_API_KEY: 'di',
  });
  const catalog = loadCatalog(config, adapters);
  const openai = catalog.providers.find((p) => p.slug === 'openai')!;
  expect(openai).toMatchObject({
    baseUrl: 'http://127.0.0.1:1/v1',
    keys: [{ label: 'key-1', secret: 'sk-o', weight: 1 }],
    configured: true,
  });
  expect(catalog.providers.find((p) => p.slug === 'nebius')).toMatchObject({
    keys: [],
    configured: false,
    baseUrl: 'https://api.studio.nebius.com/v1',
  });
  const bge = catalog.resolveEmbeddings('BAAI/BGE-M3');
  expect(selectCandidates(bge, TEXT, {}).map((e) => e.provider.slug)).toEqual(['deepinfra']);
  expect(selectCandidates(catalog.resolveEmbeddings('voyage/voyage-3.5'), TEXT, {})).toEqual([]);
});

test('an invalid catalog fails the boot with every problem', () => {
  const config = loadConfig(
    {},
    { catalog: { modelsFile: 'config/providers.yaml', providersFile: 'config/models.yaml' } },
  );
  expect(() => loadCatalog(config, adapters)).toThrow(/invalid configuration/);
  expect(() =>
    loadCatalog(loadConfig({}), { embeddings: new Set(['openai']), chat: new Set(['openai', 'anthropic']) }),
  ).toThrow(/unknown adapter "cohere"/);
});

test('prices per 1M become exact per-token decimal strings', () => {
  expect(shiftDecimal('0.02', 6)).toBe('0.00000002');
  expect(shiftDecimal('0.13', 6)).toBe('0.00000013');
  expect(shiftDecimal('1', 6)).toBe('0.000001');
  expect(shiftDecimal('12.5', 6)).toBe('0.0000125');
  expect(shiftDecimal(0.016, 6)).toBe('0.000000016');
  expect(shiftDecimal(0, 6)).toBe('0');
  expect(shiftDecimal('2000000', 6)).toBe('2');
  expect(shiftDecimal('0.00047', 0)).toBe('0.00047');
});

test('provider references: slug, display name, case, base slug of a variant', () => {
  const e = { provider: { slug: 'google-vertex/us-east5', name: 'Google Vertex' } } as Parameters<
    typeof matchesProvider
  >[1];
  expect(matchesProvider('google-vertex', e)).toBe(true);
  expect(matchesProvider('Google-Vertex/US-EAST5', e)).toBe(true);
  expect(matchesProvider('google vertex', e)).toBe(true);
  expect(matchesProvider('google', e)).toBe(false);
  expect(matchesProvider('google-vertex/europe', e)).toBe(false);
});

test('numeric prices without float noise, including exponent forms', () => {
  expect(shiftDecimal(1e-7, 0)).toBe('0.0000001');
  expect(shiftDecimal(2.5e-3, 6)).toBe('0.0000000025');
  expect(shiftDecimal(1e21, 6)).toBe('1000000000000000');
});

test('<SLUG>_API_KEY_FILE reads the key from a file', () => {
  const file = path.join(os.tmpdir(), `sy-key-${process.pid}`);
  writeFileSync(file, 'from-file\n');
  try {
    const catalog = loadCatalog(loadConfig({ GOOGLE_AI_STUDIO_API_KEY_FILE: file }), adapters);
    expect(catalog.providers.find((p) => p.slug === 'google-ai-studio')).toMatchObject({
      keys: [{ label: 'key-1', secret: 'from-file', weight: 1 }],
      configured: true,
    });
  } finally {
    rmSync(file);
  }
});

describe('default load balancing (no sort, no order)', () => {
  const keys = { DEEPINFRA_API_KEY: 'a', NEBIUS_API_KEY: 'b', TOGETHER_API_KEY: 'c' };
  const bge = () => loadCatalog(loadConfig(keys), adapters).resolveEmbeddings('baai/bge-m3');
  const first = (random: () => number, prefs = {}) => selectCandidates(bge(), TEXT, prefs, random)[0]!.provider.slug;

  test('draws the first endpoint with weight 1/price², keeping the rest cheapest first as fallbacks', () => {
    const model = bge();
    const cheapestFirst = selectCandidates(model, TEXT, { sort: 'price' }).map((e) => e.provider.slug);
    const weights = selectCandidates(model, TEXT, { sort: 'price' }).map((e) => 1 / e.pricing.prompt ** 2);
    const total = weights.reduce((a, b) => a + b, 0);
    // a draw just below the first share picks the cheapest; just above, the second
    expect(first(() => (weights[0]! / total) * 0.999)).toBe(cheapestFirst[0]);
    expect(first(() => (weights[0]! / total) * 1.001)).toBe(cheapestFirst[1]);
    expect(first(() => 0.999999)).toBe(cheapestFirst[cheapestFirst.length - 1]);
    const picked = selectCandidates(model, TEXT, {}, () => 0.999999).map((e) => e.provider.slug);
    expect(picked).toEqual([cheapestFirst[2], cheapestFirst[0], cheapestFirst[1]]);
  });

  test('over many draws each endpoint gets its inverse-square share of first attempts', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    const model = bge();
    const sorted = selectCandidates(model, TEXT, { sort: 'price' });
    const weights = sorted.map((e) => 1 / e.pricing.prompt ** 2);
    const total = weights.reduce((a, b) => a + b, 0);
    const counts = new Map<string, number>();
    const draws = 20000;
    for (let i = 0; i < draws; i++) {
      const slug = selectCandidates(model, TEXT, {}, random)[0]!.provider.slug;
      counts.set(slug, (counts.get(slug) ?? 0) + 1);
    }
    sorted.forEach((e, i) => expect((counts.get(e.provider.slug) ?? 0) / draws).toBeCloseTo(weights[i]! / total, 1));
  });

  test('an explicit sort or order is followed as given, never balanced', () => {
    expect(first(() => 0.999999, { sort: 'price' })).toBe(
      selectCandidates(bge(), TEXT, { sort: 'price' })[0]!.provider.slug,
    );
    expect(first(() => 0.999999, { order: ['nebius'] })).toBe('nebius');
  });
});
