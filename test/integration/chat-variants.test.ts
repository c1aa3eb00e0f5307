/**
 * Model variants and provider wildcards through HTTP, on a test catalog over the fake upstreams:
 * `:nitro` sorts by throughput, `:floor` by price (over the body's own `provider.sort`), `:exacto`
 * puts tool-calling endpoints first, on every door and in `models` lists, with aliases; a catalog
 * variant (`:free`) is a model of its own and a 404 where the catalog lacks it; `:online` and an
 * unknown suffix are 400s. A name under a priced wildcard is served and billed at the default
 * price, marked in its record and GET /generation, not listed by GET /models, and reserved at that
 * price; under an unpriced wildcard it stays a 404.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { bearer } from '../helpers/gateway';
import { tempDir } from '../helpers/temp-dir';
import { fromRoot } from '../../src/paths';

const MODEL = 'test/varied';
/** USD per token of the wildcard's default price (prompt 2.5, completion 10 per 1M). */
const WILD = { prompt: 2.5e-6, completion: 10e-6 };

/** A chat catalog of one model on three providers (cheapest slow, dearest fast, tool-calling mid), its `:free` entry, and wildcards. */
function testCatalog(): { providersFile: string; chatModelsFile: string } {
  const dir = tempDir('sy-variants-');
  const providers = parseYaml(readFileSync(fromRoot('config', 'providers.yaml'), 'utf8')) as {
    providers: Array<Record<string, unknown>>;
  };
  for (const p of providers.providers) {
    if (p.slug === 'openai')
      p.wildcard = { pattern: 'openai/*', pricing: { prompt: '2.5', completion: '10' }, context_length: 128000 };
    if (p.slug === 'mistral') p.wildcard = { pattern: 'mistralai/*' };
  }
  const endpoint = (provider: string, prompt: string, throughput: number, params: string[] = []) => ({
    provider,
    upstream_model: `varied-${provider}`,
    pricing: { prompt, completion: prompt },
    throughput,
    ...(params.length ? { supported_parameters: params } : {}),
  });
  const chat = {
    models: [
      {
        id: MODEL,
        name: 'Test: Varied',
        created: 1767225600,
        context_length: 32000,
        aliases: ['varied'],
        endpoints: [
          endpoint('deepinfra', '0.1', 30),
          endpoint('groq', '0.5', 500, ['tools']),
          endpoint('together', '0.3', 100, ['tools', 'tool_choice']),
        ],
      },
      {
        id: `${MODEL}:free`,
        name: 'Test: Varied (free)',
        created: 1767225600,
        context_length: 8000,
        endpoints: [
          { provider: 'fireworks', upstream_model: 'varied-free', pricing: { prompt: '0', completion: '0' } },
        ],
      },
    ],
  };
  writeFileSync(path.join(dir, 'providers.yaml'), toYaml(providers));
  writeFileSync(path.join(dir, 'chat-models.yaml'), toYaml(chat));
  return { providersFile: path.join(dir, 'providers.yaml'), chatModelsFile: path.join(dir, 'chat-models.yaml') };
}

describe('model variants and provider wildcards', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({
      overrides: { catalog: testCatalog(), chat: { attemptTimeoutMs: 400, deadlineMs: 3000 } },
    });
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.fleet.resetAll();
    h.events.length = 0;
  });

  const chat = (body: Record<string, unknown>, key = h.key) =>
    request(h.gw.app)
      .post('/api/v1/chat/completions')
      .set('Authorization', bearer(key))
      .send({ messages: [{ role: 'user', content: 'hello there' }], ...body });
  /** The upstream model names each fake was sent, in call order. */
  const sentTo = (slug: string) => h.fleet.fakes[slug]!.calls.map((c) => c.body.model);

  test(':nitro serves the fastest endpoint; the answer and the record name the base model, the record the variant', async () => {
    expect((await chat({ model: MODEL })).body.provider).toBe('DeepInfra');
    h.events.length = 0;
    const res = await chat({ model: `${MODEL}:nitro` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ model: MODEL, provider: 'Groq' });
    expect(sentTo('groq')).toEqual(['varied-groq']);
    expect(h.events[0]).toMatchObject({ model: MODEL, provider: 'Groq', variant: 'nitro', wildcardPriced: false });
    const streamed = await chat({ model: `${MODEL}:nitro`, stream: true });
    expect(streamed.status).toBe(200);
    expect(h.events[1]).toMatchObject({ model: MODEL, provider: 'Groq', variant: 'nitro', streamed: true });
  });

  test(':floor serves the cheapest endpoint, over the body provider.sort of the same request', async () => {
    expect((await chat({ model: MODEL, provider: { sort: 'throughput' } })).body.provider).toBe('Groq');
    const res = await chat({ model: `${MODEL}:floor`, provider: { sort: { by: 'throughput', partition: 'none' } } });
    expect(res.status).toBe(200);
    expect(res.body.provider).toBe('DeepInfra');
  });

  test(':exacto puts the endpoints listing tools and tool_choice first', async () => {
    expect((await chat({ model: `${MODEL}:exacto` })).body.provider).toBe('Together');
  });

  test('an alias with a suffix, on the Messages and Responses doors and in a models list', async () => {
    expect((await chat({ model: 'VARIED:Nitro' })).body).toMatchObject({ model: MODEL, provider: 'Groq' });
    const messages = await request(h.gw.app)
      .post('/api/v1/messages')
      .set('x-api-key', h.key)
      .send({ model: 'varied:nitro', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    expect(messages.status).toBe(200);
    const responses = await request(h.gw.app)
      .post('/api/v1/responses')
      .set('Authorization', bearer(h.key))
      .send({ model: `${MODEL}:nitro`, input: 'hi' });
    expect(responses.status).toBe(200);
    expect(sentTo('groq')).toEqual(['varied-groq', 'varied-groq', 'varied-groq']);
    // The :free model fails: the list's next name is tried with its own variant's order.
    h.fleet.fakes.fireworks!.setSticky({ status: 500 });
    const fallback = await chat({ model: `${MODEL}:free`, models: [`${MODEL}:nitro`] });
    expect(fallback.status).toBe(200);
    expect(fallback.body.provider).toBe('Groq');
  });

  test(':free is the catalog entry of its own; a catalog variant the catalog lacks is a 404 naming it', async () => {
    const res = await chat({ model: `${MODEL}:free` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ model: `${MODEL}:free`, provider: 'Fireworks' });
    expect(res.body.usage.cost).toBe(0);
    expect(h.events[0]).toMatchObject({ model: `${MODEL}:free`, variant: 'free', costUsd: 0 });
    for (const name of [`${MODEL}:thinking`, 'test/other:free', 'test/other:nitro']) {
      const missing = await chat({ model: name });
      expect(missing.status).toBe(404);
      expect(missing.body.error.metadata).toMatchObject({ model: name });
    }
  });

  test(':online is a 400 saying web search is not available; an unknown suffix a 400 naming it', async () => {
    const online = await chat({ model: `${MODEL}:online` });
    expect(online.status).toBe(400);
    expect(JSON.stringify(online.body.error)).toMatch(/:online variant \(web search\) is not available/);
    const unknown = await chat({ model: MODEL, models: [`${MODEL}:turbo`] });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body.error)).toMatch(/unknown model variant :turbo/);
    const messages = await request(h.gw.app)
      .post('/api/v1/messages')
      .set('x-api-key', h.key)
      .send({ model: 'varied:turbo', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    expect(messages.status).toBe(400);
    expect(messages.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(JSON.stringify(messages.body.error.metadata)).toMatch(/unknown model variant :turbo/);
    expect(Object.values(h.fleet.fakes).every((f) => f.calls.length === 0)).toBe(true);
  });

  test('a name under a priced wildcard goes to its provider at the default price, marked in the record and GET /generation', async () => {
    const res = await chat({ model: 'openai/gpt-unlisted-9' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ model: 'openai/gpt-unlisted-9', provider: 'OpenAI' });
    expect(sentTo('openai')).toEqual(['gpt-unlisted-9']);
    expect(res.body.usage.cost).toBeCloseTo(2 * WILD.prompt + 3 * WILD.completion, 12);
    expect(h.events[0]).toMatchObject({
      model: 'openai/gpt-unlisted-9',
      wildcardPriced: true,
      costUsd: res.body.usage.cost,
    });
    await h.gw.deps.recorder.flush();
    const gen = await request(h.gw.app).get(`/api/v1/generation?id=${res.body.id}`).set('Authorization', bearer(h.key));
    expect(gen.status).toBe(200);
    expect(gen.body.data).toMatchObject({
      model: 'openai/gpt-unlisted-9',
      wildcard_priced: true,
      provider_name: 'OpenAI',
    });
    // A routing variant works on it too; the provider's part is the pattern's, the model's part is sent as written.
    const cased = await chat({ model: 'OpenAI/GPT-Unlisted-9:floor' });
    expect(cased.status).toBe(200);
    expect(cased.body.model).toBe('openai/GPT-Unlisted-9');
    expect(sentTo('openai')).toEqual(['gpt-unlisted-9', 'GPT-Unlisted-9']);
    // Never listed.
    const list = await request(h.gw.app).get('/api/v1/models').set('Authorization', bearer(h.key));
    expect(list.status).toBe(200);
    const ids = list.body.data.map((m: { id: string }) => m.id);
    expect(ids).toEqual(expect.arrayContaining([MODEL, `${MODEL}:free`]));
    expect(ids.filter((id: string) => id.startsWith('openai/'))).not.toContain('openai/gpt-unlisted-9');
  });

  test('the budget reserves a wildcard model at its default price', async () => {
    const created = await request(h.gw.app)
      .post('/api/v1/keys')
      .set('Authorization', bearer(h.gw.mgmtKey))
      .send({ name: 'tiny', limit: 0.01 });
    expect(created.status).toBe(201);
    const tiny = created.body.key as string;
    // No bound: up to 128000 completion tokens at 10 USD per 1M is far above 0.01 USD.
    expect((await chat({ model: 'openai/gpt-unlisted-9' }, tiny)).status).toBe(402);
    // 100 completion tokens fit.
    expect((await chat({ model: 'openai/gpt-unlisted-9', max_tokens: 100 }, tiny)).status).toBe(200);
    // The same unbounded request on a catalog endpoint at 0.1 USD per 1M (32000 tokens of context) fits.
    expect((await chat({ model: MODEL, provider: { only: ['deepinfra'] } }, tiny)).status).toBe(200);
  });

  test('a name under a wildcard without a default price stays a 404 naming the model', async () => {
    const res = await chat({ model: 'mistralai/unlisted-large' });
    expect(res.status).toBe(404);
    expect(res.body.error.metadata).toMatchObject({
      model: 'mistralai/unlisted-large',
      reason: expect.stringContaining('has no default price'),
    });
    expect(h.fleet.fakes.mistral!.calls).toHaveLength(0);
  });
});
