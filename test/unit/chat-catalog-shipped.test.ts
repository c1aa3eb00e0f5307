/**
 * The shipped chat catalog (config/chat-models.yaml with config/providers.yaml) stays valid as it
 * grows: every price is exact to the nano-dollar (the per-token string the API shows is the
 * per-1M price divided by 10^6, with at most 9 decimals), every price line names the page it
 * came from, every endpoint's provider is configured with a chat adapter, reasoning models say
 * so, and the names agents send (aliases) are unique, shadow no model id and resolve to their model.
 */
import { loadConfig } from '../../src/config';
import { loadCatalog } from '../../src/catalog/load';
import { ADAPTER_NAMES } from '../../src/providers/adapter-names';
import { configText, shippedChatModels, shippedProviders } from '../helpers/shipped-catalog';

const catalog = loadCatalog(loadConfig({}, {}), ADAPTER_NAMES);
const models = shippedChatModels();
const providers = new Map(shippedProviders().map((p) => [p.slug, p]));

/** A decimal string × 10^`places` as an integer, or null when it has more decimals than `places`. */
function scaled(text: string, places: number): bigint | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return null;
  const frac = m[2] ?? '';
  if (frac.replace(/0+$/, '').length > places) return null;
  return BigInt(m[1]! + frac.padEnd(places, '0').slice(0, places));
}

test('every price is a per-1M decimal string whose per-token form is exact to the nano-dollar', () => {
  let checked = 0;
  for (const m of models) {
    const loaded = catalog.find(m.id)!;
    m.endpoints.forEach((e, i) => {
      const text = loaded.endpoints[i]!.pricing.text as Record<string, string>;
      for (const [field, per1M] of Object.entries(e.pricing)) {
        const where = `${m.id} ${e.provider} ${field}`;
        // Quoted in the YAML, so no float ever sits between the page and the API.
        expect({ where, type: typeof per1M }).toEqual({ where, type: 'string' });
        // USD per 1M tokens × 1000 = nano-dollars per token: an integer, equal to the API's string.
        const nanoFromPage = scaled(per1M, 3);
        const nanoOnWire = scaled(text[field]!, 9);
        expect({ where, nanoFromPage, nanoOnWire }).toEqual({ where, nanoFromPage: nanoOnWire, nanoOnWire });
        expect({ where, nano: nanoOnWire === null }).toEqual({ where, nano: false });
        checked++;
      }
    });
  }
  expect(checked).toBeGreaterThan(2 * models.length);
});

test('every price of the shipped chat catalog names the price page it came from', () => {
  const lines = configText('chat-models.yaml').split('\n');
  const priced = lines.map((l, i) => [l, i] as const).filter(([l]) => /^\s+pricing:/.test(l));
  expect(priced).toHaveLength(models.reduce((n, m) => n + m.endpoints.length, 0));
  for (const [, i] of priced)
    expect({ line: i + 1, comment: lines[i - 1] }).toEqual({
      line: i + 1,
      comment: expect.stringMatching(/^\s+# https:\/\/\S+/),
    });
});

test("every endpoint's provider is configured in providers.yaml, over https, with an adapter that speaks chat", () => {
  const used = new Set(models.flatMap((m) => m.endpoints.map((e) => e.provider)));
  expect(used.size).toBeGreaterThan(5);
  for (const slug of used) {
    const p = providers.get(slug);
    expect({ slug, adapter: p?.adapter, chat: ADAPTER_NAMES.chat.has(p?.adapter ?? '') }).toEqual({
      slug,
      adapter: expect.any(String),
      chat: true,
    });
    // A base URL may name its region (Bedrock's `{region}`), which the loader fills in.
    expect(p!.base_url.replace('{region}', 'us-east-1')).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]+(\/|$)/);
  }
  // Every shipped chat model loaded with all its endpoints (none dropped for an unknown provider).
  for (const m of models) expect([m.id, catalog.find(m.id)?.endpoints.length]).toEqual([m.id, m.endpoints.length]);
});

test('an endpoint that takes reasoning also offers include_reasoning; the GPT-5 and Claude 4.5+ endpoints take reasoning', () => {
  for (const m of models)
    for (const e of m.endpoints) {
      const params = e.supported_parameters ?? [];
      if (params.includes('reasoning'))
        expect({ model: m.id, provider: e.provider, include: params.includes('include_reasoning') }).toEqual({
          model: m.id,
          provider: e.provider,
          include: true,
        });
    }
  const reasoning = (id: string) => catalog.find(id)!.endpoints.every((e) => e.parameters.has('reasoning'));
  const reasoningFamilies = models.filter((m) =>
    /^openai\/gpt-5|^anthropic\/claude-(opus|sonnet|haiku)-(4\.[5-9]|[5-9])/.test(m.id),
  );
  expect(reasoningFamilies.length).toBeGreaterThan(5);
  for (const m of reasoningFamilies) expect([m.id, reasoning(m.id)]).toEqual([m.id, true]);
});

test('aliases are unique, shadow no model id, and resolve to their own model', () => {
  const ids = new Set(catalog.models.map((m) => m.id.toLowerCase()));
  const seen = new Map<string, string>();
  for (const m of models)
    for (const alias of m.aliases ?? []) {
      const key = alias.toLowerCase();
      expect({ alias, shadows: ids.has(key), takenBy: seen.get(key) }).toEqual({
        alias,
        shadows: false,
        takenBy: undefined,
      });
      seen.set(key, m.id);
      expect([alias, catalog.resolveChat(alias).id]).toEqual([alias, m.id]);
    }
  expect(seen.size).toBeGreaterThan(10);
  // The names agents send most resolve.
  expect(catalog.resolveChat('claude-opus-4-6').id).toBe('anthropic/claude-opus-4.6');
  expect(catalog.resolveChat('claude-sonnet-4-5-20250929').id).toBe('anthropic/claude-sonnet-4.5');
  expect(catalog.resolveChat('gpt-5.4-mini').id).toBe('openai/gpt-5.4-mini');
  expect(catalog.resolveChat('gpt-oss-120b').id).toBe('openai/gpt-oss-120b');
});

test("an endpoint's upstream model name resolves to that endpoint's model (no two models share one)", () => {
  for (const m of models)
    for (const e of m.endpoints)
      expect([e.upstream_model, catalog.resolveChat(e.upstream_model).id]).toEqual([e.upstream_model, m.id]);
});
