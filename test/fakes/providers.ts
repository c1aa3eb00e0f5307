/**
 * One fake upstream per provider of the default catalog, and the config overrides that point the
 * gateway at them (`providers.<SLUG>.baseUrl/apiKey`, what `<SLUG>_BASE_URL`/`<SLUG>_API_KEY` set).
 */
import type { ConfigOverrides } from '../../src/config';
import { providerEnvName } from '../../src/config';
import { anthropicChatWire, openaiChatWire, type ChatWire } from './chat-wires';
import { geminiChatWire } from './gemini-chat-wire';
import { openaiResponsesWire } from './responses-wire';
import { azureChatWire } from './azure-wire';
import { bedrockChatWire } from './bedrock-wire';
import { startFake, type FakeUpstream, type WireHandler } from './server';
import { cohereWire, geminiWire, openaiWire, voyageWire } from './wires';

/**
 * Slug → embeddings wire (null: chat only), chat wire, and the base-URL path its adapters expect.
 * An `optIn` provider gets no credential: a test that uses it gives one (`BEDROCK_KEY`, or AWS
 * credentials), as its Claude endpoints would otherwise share every Claude test's traffic with
 * Anthropic's at random (they cost the same).
 */
export const FAKE_PROVIDERS: Record<
  string,
  { wire: WireHandler | null; chat?: ChatWire | ChatWire[]; basePath: string; optIn?: true }
> = {
  openai: { wire: openaiWire, chat: [openaiChatWire, openaiResponsesWire], basePath: '/v1' },
  mistral: { wire: openaiWire, chat: openaiChatWire, basePath: '/v1' },
  'google-ai-studio': { wire: geminiWire, chat: geminiChatWire, basePath: '/v1beta' },
  cohere: { wire: cohereWire, basePath: '' },
  voyage: { wire: voyageWire, basePath: '' },
  deepinfra: { wire: openaiWire, chat: openaiChatWire, basePath: '/v1/openai' },
  nebius: { wire: openaiWire, chat: openaiChatWire, basePath: '/v1' },
  together: { wire: openaiWire, chat: openaiChatWire, basePath: '/v1' },
  anthropic: { wire: null, chat: anthropicChatWire, basePath: '/v1' },
  groq: { wire: null, chat: openaiChatWire, basePath: '/openai/v1' },
  fireworks: { wire: null, chat: openaiChatWire, basePath: '/inference/v1' },
  xai: { wire: null, chat: openaiChatWire, basePath: '/v1' },
  azure: { wire: openaiWire, chat: azureChatWire, basePath: '/openai' },
  'amazon-bedrock': { wire: null, chat: bedrockChatWire, basePath: '', optIn: true },
};

/** Provider settings that switch the fake Bedrock on with a Bedrock API key (`providerExtras`). */
export const BEDROCK_KEY = { AMAZON_BEDROCK: { apiKey: 'test-key-amazon-bedrock' } };

/** Every fake, keyed by provider slug, plus helpers. */
export interface FakeFleet {
  fakes: Record<string, FakeUpstream>;
  /** Config overrides pointing every catalog provider at its fake, with key `test-key-<slug>` (none for an `optIn` one). */
  overrides: ConfigOverrides;
  resetAll(): void;
  closeAll(): Promise<void>;
}

/** Start a fake for every provider of the default catalog. */
export async function startFakeFleet(): Promise<FakeFleet> {
  const entries = await Promise.all(
    Object.entries(FAKE_PROVIDERS).map(async ([slug, p]) => [slug, await startFake(p.wire, p.chat)] as const),
  );
  const fakes = Object.fromEntries(entries) as Record<string, FakeUpstream>;
  const providers: Record<string, { baseUrl: string; apiKey?: string }> = {};
  for (const [slug, fake] of entries) {
    const p = FAKE_PROVIDERS[slug]!;
    providers[providerEnvName(slug)] = {
      baseUrl: `${fake.origin}${p.basePath}`,
      ...(p.optIn ? {} : { apiKey: `test-key-${slug}` }),
    };
  }
  return {
    fakes,
    overrides: { providers },
    resetAll: () => entries.forEach(([, f]) => f.reset()),
    closeAll: async () => void (await Promise.all(entries.map(([, f]) => f.close()))),
  };
}
