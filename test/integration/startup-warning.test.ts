/**
 * At start the gateway logs one warning naming the catalog models with no usable endpoint (no
 * provider key configured), read here from a real logger writing to a stream (issue 32 item 10).
 */
import { PassThrough } from 'node:stream';
import { openTestPglite, uniqueId } from '../helpers/services';
import { testConfig } from '../helpers/gateway';
import { assembleDeps, closeDependencies } from '../../src/deps';
import { createLogger } from '../../src/observability/logger';
import { MemoryKv } from '../../src/kv/memory';
import type { ConfigOverrides } from '../../src/config';
import { providerEnvName } from '../../src/config';
import { shippedProviders } from '../helpers/shipped-catalog';
import type { Database } from '../../src/store/db';

/** Every provider of the shipped config/providers.yaml, as its environment names it. */
const SLUGS = shippedProviders().map((p) => providerEnvName(p.slug));

let db: Database;
beforeAll(async () => {
  db = await openTestPglite();
});
afterAll(async () => {
  await db.close();
});

/** The JSON lines a gateway logs while its dependencies are assembled with `providers`. */
async function startupLines(providers: ConfigOverrides['providers']): Promise<Array<Record<string, unknown>>> {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString()));
  const config = testConfig({ log: { level: 'info' }, providers });
  const deps = await assembleDeps(config, db, new MemoryKv(`t:${uniqueId()}:`), {
    logger: createLogger('info', stream),
  });
  await closeDependencies(deps);
  await new Promise((r) => setImmediate(r));
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

test('no provider key configured → one warning naming the models and the variables to set', async () => {
  const lines = await startupLines({});
  const warnings = lines.filter((l) => l.level === 'warn' && /no usable endpoint/.test(String(l.message)));
  expect(warnings).toHaveLength(1);
  const [warning] = warnings;
  expect(warning!.models).toEqual(
    expect.arrayContaining(['openai/text-embedding-3-small', 'baai/bge-m3', 'cohere/embed-v4.0']),
  );
  expect(String(warning!.message)).toContain('openai/text-embedding-3-small');
  expect(warning!.set_one_of).toEqual(expect.arrayContaining(['OPENAI_API_KEY', 'DEEPINFRA_API_KEY']));
});

test('only OpenAI configured → its models are not named; the others are', async () => {
  const [warning] = (await startupLines({ OPENAI: { apiKey: 'sk-test' } })).filter((l) =>
    /no usable endpoint/.test(String(l.message)),
  );
  expect(warning!.models).not.toContain('openai/text-embedding-3-small');
  expect(warning!.models).toContain('baai/bge-m3');
  expect(warning!.set_one_of).not.toContain('OPENAI_API_KEY');
});

test('every provider configured → no such warning', async () => {
  const providers = Object.fromEntries(SLUGS.map((s) => [s, { apiKey: `key-${s}` }]));
  const lines = await startupLines(providers);
  expect(lines.filter((l) => /no usable endpoint/.test(String(l.message)))).toEqual([]);
});
