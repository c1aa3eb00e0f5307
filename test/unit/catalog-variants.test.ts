/**
 * Model variants and provider wildcards on the shipped catalog and at boot: an alias takes a
 * routing variant (`claude-sonnet-4-5:nitro` is the base model sorted by throughput), a name the
 * catalog knows whole is never split, and a wildcard is refused at boot on a provider that speaks
 * no chat, twice for one pattern, with a price finer than money, or priced without a context length.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { loadConfig } from '../../src/config';
import { loadCatalog } from '../../src/catalog/load';
import { ADAPTER_NAMES } from '../../src/providers/adapter-names';
import { fromRoot } from '../../src/paths';
import { tempDir } from '../helpers/temp-dir';

const dir = tempDir('catalog-variants-');
let n = 0;
/** A providers file: the shipped one with `wildcards` (slug → wildcard) added. */
function providersWith(wildcards: Record<string, unknown>): string {
  const doc = parseYaml(readFileSync(fromRoot('config', 'providers.yaml'), 'utf8')) as {
    providers: Array<Record<string, unknown>>;
  };
  for (const p of doc.providers) if (wildcards[p.slug as string]) p.wildcard = wildcards[p.slug as string];
  const full = path.join(dir, `p${n++}.yaml`);
  writeFileSync(full, toYaml(doc));
  return full;
}
const load = (providersFile?: string) =>
  loadCatalog(loadConfig({}, { catalog: providersFile ? { providersFile } : {} }), ADAPTER_NAMES);
function problemsOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the catalog loaded');
}

test('an alias takes a routing variant; the target is the base model with the sort the variant stands for', () => {
  const catalog = load();
  const plain = catalog.resolveChatTarget('claude-sonnet-4-5');
  expect(catalog.resolveChatTarget('claude-sonnet-4-5:nitro')).toEqual({
    model: plain.model,
    sort: 'throughput',
    variant: 'nitro',
  });
  expect(catalog.resolveChatTarget(`${plain.model.id}:FLOOR`)).toMatchObject({ sort: 'price', variant: 'floor' });
  expect(catalog.resolveChat('claude-sonnet-4-5:exacto')).toBe(plain.model);
  expect(plain).toMatchObject({ sort: null, variant: null });
});

test('a wildcard is refused at boot on a provider without chat, twice for one pattern, priced finer than money or without a context length', () => {
  const price = { prompt: '1', completion: '2' };
  expect(problemsOf(() => load(providersWith({ cohere: { pattern: 'cohere/*' } })))).toMatch(
    /providers\.cohere\.wildcard: adapter "cohere" serves no chat models/,
  );
  const twice = { pattern: 'openai/*', pricing: price, context_length: 1000 };
  expect(problemsOf(() => load(providersWith({ openai: twice, deepinfra: twice })))).toMatch(
    /providers\.deepinfra\.wildcard: openai\/\* is another provider's wildcard too/,
  );
  const fine = { pattern: 'openai/*', pricing: { prompt: '0.0001', completion: '1' }, context_length: 1000 };
  expect(problemsOf(() => load(providersWith({ openai: fine })))).toMatch(
    /providers\.openai\.wildcard\.pricing: prompt 0\.0000000001 USD has more than 9 decimals/,
  );
  expect(problemsOf(() => load(providersWith({ openai: { pattern: 'openai/*', pricing: price } })))).toMatch(
    /context_length/,
  );
  expect(problemsOf(() => load(providersWith({ openai: { pattern: 'openai/gpt-*' } })))).toMatch(/pattern/);
});
