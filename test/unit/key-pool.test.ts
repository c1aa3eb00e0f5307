/**
 * Key pools, below HTTP: how the environment and providers.yaml give a provider its keys and the
 * clouds' settings, and how the pool shares its picks by weight. The behaviour through the
 * gateway (401, 429, replicas) is test/integration/key-pools.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { loadCatalog } from '../../src/catalog/load';
import type { ProviderInfo } from '../../src/catalog/types';
import { MemoryKv } from '../../src/kv/memory';
import { createLogger } from '../../src/observability/logger';
import { Metrics } from '../../src/observability/metrics';
import { ADAPTER_NAMES } from '../../src/providers/adapter-names';
import { KeyPools } from '../../src/routing/key-pool';
import { fromRoot } from '../../src/paths';
import { chatEndpoint } from '../helpers/chat-endpoint';
import { tempDir } from '../helpers/temp-dir';

const dir = tempDir('key-pool-');

function catalogWith(providersYaml: string, env: NodeJS.ProcessEnv = {}) {
  const file = path.join(dir, `providers-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, providersYaml);
  const config = loadConfig({ ...env, SWITCHYARD_PROVIDERS_FILE: file });
  return loadCatalog(config, ADAPTER_NAMES);
}

/** The shipped providers (the chat catalog names them all), each test adding what it needs. */
const BASE = readFileSync(fromRoot('config', 'providers.yaml'), 'utf8');
const ANTHROPIC_BASE = '    base_url: https://api.anthropic.com/v1\n';

test('<SLUG>_API_KEYS gives a pool labelled by position; it wins over <SLUG>_API_KEY and the YAML', () => {
  const catalog = catalogWith(BASE, { OPENAI_API_KEYS: 'sk-1, sk-2,,sk-3', OPENAI_API_KEY: 'sk-single' });
  const openai = catalog.providers.find((p) => p.slug === 'openai')!;
  expect(openai.keys).toEqual([
    { label: 'key-1', secret: 'sk-1', weight: 1 },
    { label: 'key-2', secret: 'sk-2', weight: 1 },
    { label: 'key-3', secret: 'sk-3', weight: 1 },
  ]);
  expect(openai.configured).toBe(true);
  expect(catalog.providers.find((p) => p.slug === 'anthropic')!.configured).toBe(false);
});

test('YAML api_keys take weights; the API version, region and Entra token come from the environment', () => {
  const yaml = `${BASE.replace(ANTHROPIC_BASE, `${ANTHROPIC_BASE}    api_keys: [{ key: sk-heavy, weight: 3 }, sk-light]\n`)}
  - slug: azure-test
    name: Azure OpenAI
    adapter: openai
    base_url: https://example.openai.azure.com/openai
    api_version: 2024-10-21
`;
  const catalog = catalogWith(yaml, {
    AZURE_TEST_API_VERSION: '2025-04-01-preview',
    AZURE_TEST_ENTRA_TOKEN_FILE: '/var/run/secrets/azure/token',
    ANTHROPIC_REGION: 'eu-west-1',
  });
  const anthropic = catalog.providers.find((p) => p.slug === 'anthropic')!;
  expect(anthropic.keys.map((k) => [k.secret, k.weight])).toEqual([
    ['sk-heavy', 3],
    ['sk-light', 1],
  ]);
  expect(anthropic.region).toBe('eu-west-1');
  const azure = catalog.providers.find((p) => p.slug === 'azure-test')!;
  expect(azure.apiVersion).toBe('2025-04-01-preview');
  expect(azure.entra).toEqual({ file: '/var/run/secrets/azure/token' });
  expect(azure.configured).toBe(true);
  // The standard AWS variables are only a Bedrock provider's.
  const withAws = catalogWith(BASE, { AWS_ACCESS_KEY_ID: 'AKIA', AWS_SECRET_ACCESS_KEY: 's' });
  expect(withAws.providers.find((p) => p.slug === 'openai')!.aws).toBeNull();
});

test('Bedrock: AWS credentials or an API key configure it; the region fills its base URL (AMAZON_BEDROCK_REGION, AWS_REGION, us-east-1)', () => {
  const bedrock = (env: NodeJS.ProcessEnv) =>
    catalogWith(BASE, env).providers.find((p) => p.slug === 'amazon-bedrock')!;
  const bare = bedrock({});
  expect(bare).toMatchObject({ configured: false, region: 'us-east-1', aws: null });
  expect(bare.baseUrl).toBe('https://bedrock-runtime.us-east-1.amazonaws.com');
  const signed = bedrock({ AWS_ACCESS_KEY_ID: 'AKIA1', AWS_SECRET_ACCESS_KEY: 's', AWS_REGION: 'eu-central-1' });
  expect(signed).toMatchObject({
    configured: true,
    region: 'eu-central-1',
    aws: { accessKeyId: 'AKIA1', secretAccessKey: 's', sessionToken: null },
  });
  expect(signed.baseUrl).toBe('https://bedrock-runtime.eu-central-1.amazonaws.com');
  const keyed = bedrock({
    AMAZON_BEDROCK_API_KEY: 'br-key',
    AWS_REGION: 'eu-central-1',
    AMAZON_BEDROCK_REGION: 'us-west-2',
  });
  expect(keyed).toMatchObject({ configured: true, region: 'us-west-2', aws: null });
  expect(keyed.keys.map((k) => k.secret)).toEqual(['br-key']);
  expect(keyed.baseUrl).toBe('https://bedrock-runtime.us-west-2.amazonaws.com');
});

test('a malformed API version or region is a configuration problem naming its variable', () => {
  expect(() => loadConfig({ OPENAI_API_VERSION: 'a b' })).toThrow(/OPENAI_API_VERSION/);
  expect(() => loadConfig({ AWS_REGION: 'Not A Region' })).toThrow(/AWS_REGION/);
});

describe('the pool', () => {
  const provider = (weights: number[]): ProviderInfo => ({
    ...chatEndpoint().provider,
    slug: 'p',
    keys: weights.map((weight, i) => ({ label: `key-${i + 1}`, secret: `s${i + 1}`, weight })),
  });
  const pools = (p: ProviderInfo, now = () => 0) =>
    new KeyPools([p], new MemoryKv('t:'), new Metrics(), createLogger('error'), now);

  test('picks in proportion to the weights, spread out (smooth weighted round robin)', () => {
    const p = provider([3, 1]);
    const pool = pools(p);
    const picks = Array.from({ length: 8 }, () => {
      const pick = pool.pick(p);
      return 'key' in pick ? pick.key?.label : 'none';
    });
    expect(picks).toEqual(['key-1', 'key-1', 'key-2', 'key-1', 'key-1', 'key-1', 'key-2', 'key-1']);
  });

  test('a provider with one key has no pool: its key is always picked, and a refusal is left to its circuits', () => {
    const p = provider([1]);
    const pool = pools(p);
    expect(pool.settle(p, p.keys[0]!, 401)).toBe(false);
    expect(pool.pick(p)).toEqual({ key: p.keys[0] });
    expect(pool.readings(p)).toEqual([]);
  });

  test('every key out is a provider-side failure; a 5xx or 400 does not move a key', () => {
    const p = provider([1, 1]);
    const pool = pools(p);
    expect(pool.settle(p, p.keys[0]!, 500)).toBe(false);
    expect(pool.settle(p, p.keys[0]!, 400)).toBe(false);
    expect(pool.settle(p, p.keys[0]!, 403)).toBe(true);
    expect(pool.settle(p, p.keys[1]!, 401)).toBe(true);
    expect(pool.pick(p)).toEqual({ failure: expect.objectContaining({ outcome: 'server', status: null }) });
  });
});
