/**
 * One fake upstream per provider of the default catalog, and the config overrides that point the
 * gateway at them (`providers.<SLUG>.baseUrl/apiKey`, what `<SLUG>_BASE_URL`/`<SLUG>_API_KEY` set).
 */
import type { ConfigOverrides } from '../../src/config';
import { providerEnvName } from '../../src/config';
import { startFake, type FakeUpstream, type WireHandler } from './server';
import { cohereWire, geminiWire, openaiWire, voyageWire } from './wires';

/** Slug → wire and the base-URL path its adapter expects. */
export const FAKE_PROVIDERS: Record<string, { wire: WireHandler; basePath: string }> = {
  openai: { wire: openaiWire, basePath: '/v1' },
  mistral: { wire: openaiWire, basePath: '/v1' },
  'google-ai-studio': { wire: geminiWire, basePath: '/v1beta' },
  cohere: { wire: cohereWire, basePath: '' },
  voyage: { wire: voyageWire, basePath: '' },
  deepinfra: { wire: openaiWire, basePath: '/v1/openai' },
  nebius: { wire: openaiWire, basePath: '/v1' },
  together: { wire: openaiWire, basePath: '/v1' },
  // Chat-only providers: no test routes to them yet (chat wires: test/fakes/chat-wires.ts), so the embeddings wire stands in.
  anthropic: { wire: openaiWire, basePath: '/v1' },
  groq: { wire: openaiWire, basePath: '/openai/v1' },
  fireworks: { wire: openaiWire, basePath: '/inference/v1' },
};

/** Every fake, keyed by provider slug, plus helpers. */
export interface FakeFleet {
  fakes: Record<string, FakeUpstream>;
  /** Config overrides pointing every catalog provider at its fake, with key `test-key-<slug>`. */
  overrides: ConfigOverrides;
  resetAll(): void;
  closeAll(): Promise<void>;
}

/** Start a fake for every provider of the default catalog. */
export async function startFakeFleet(): Promise<FakeFleet> {
  const entries = await Promise.all(Object.entries(FAKE_PROVIDERS).map(async ([slug, p]) => [slug, await startFake(p.wire)] as const));
  const fakes = Object.fromEntries(entries) as Record<string, FakeUpstream>;
  const providers: Record<string, { baseUrl: string; apiKey: string }> = {};
  for (const [slug, fake] of entries) {
    providers[providerEnvName(slug)] = { baseUrl: `${fake.origin}${FAKE_PROVIDERS[slug]!.basePath}`, apiKey: `test-key-${slug}` };
  }
  return {
    fakes,
    overrides: { providers },
    resetAll: () => entries.forEach(([, f]) => f.reset()),
    closeAll: async () => void (await Promise.all(entries.map(([, f]) => f.close()))),
  };
}
