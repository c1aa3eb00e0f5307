/**
 * Parameter fidelity (issue 58 item 6): each chat field OpenAI-compatible servers take only on
 * some models is forwarded where the endpoint's catalog entry lists it, never elsewhere (a server
 * refuses a parameter it lacks), and with `provider.require_parameters` an endpoint lacking it is
 * no candidate; `transforms` and audio output, which the gateway cannot honour, are 400s naming them.
 */
import request from 'supertest';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { createInferenceKey } from '../helpers/gateway';

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness({});
});
afterAll(() => h.close());
beforeEach(() => h.fleet.resetAll());

const chat = (model: string, over: Record<string, unknown>) =>
  request(h.gw.app)
    .post('/api/v1/chat/completions')
    .set('Authorization', `Bearer ${h.key}`)
    .send({ model, messages: [{ role: 'user', content: 'hello' }], ...over });
const lastBody = (slug: string) => h.fleet.fakes[slug]!.calls.at(-1)!.body;

/** Field → a value, an endpoint that lists it (model, provider) and a model whose endpoint does not. */
const FIELDS: Array<[string, unknown, string, string]> = [
  ['prediction', { type: 'content', content: 'hello world' }, 'openai/gpt-4o', 'openai/gpt-5.5'],
  ['service_tier', 'flex', 'openai/gpt-5.5', 'meta-llama/llama-3.3-70b-instruct'],
  ['prompt_cache_key', 'session-42', 'openai/gpt-4o-mini', 'meta-llama/llama-3.3-70b-instruct'],
  ['verbosity', 'low', 'openai/gpt-5.5', 'openai/gpt-4o'],
];

describe.each(FIELDS)('%s', (field, value, listing, lacking) => {
  test('forwarded where the endpoint lists it', async () => {
    const res = await chat(listing, { [field]: value });
    expect(res.status).toBe(200);
    expect(lastBody('openai')[field]).toEqual(value);
  });

  test('never sent where it does not; with require_parameters that endpoint is no candidate', async () => {
    const res = await chat(lacking, { [field]: value });
    expect(res.status).toBe(200);
    const calls = Object.values(h.fleet.fakes).flatMap((f) => f.calls);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).not.toHaveProperty(field);
    h.fleet.resetAll();
    const strict = await chat(lacking, { [field]: value, provider: { require_parameters: true } });
    expect(strict.status).toBe(404);
    expect(Object.values(h.fleet.fakes).every((f) => f.calls.length === 0)).toBe(true);
  });
});

test('top_a and web_search_options reach no endpoint that does not list them (OpenAI would refuse top_a)', async () => {
  const res = await chat('openai/gpt-4o', { top_a: 0.5, web_search_options: {} });
  expect(res.status).toBe(200);
  expect(lastBody('openai')).not.toHaveProperty('top_a');
  expect(lastBody('openai')).not.toHaveProperty('web_search_options');
  const strict = await chat('openai/gpt-4o', { top_a: 0.5, provider: { require_parameters: true } });
  expect(strict.status).toBe(404);
});

test('transforms is a 400 naming it ([] is fine); audio output a 400 naming modalities', async () => {
  const t = await chat('openai/gpt-4o', { transforms: ['middle-out'] });
  expect(t.status).toBe(400);
  expect(JSON.stringify(t.body)).toContain('body.transforms');
  expect((await chat('openai/gpt-4o', { transforms: [] })).status).toBe(200);
  const audio = await chat('openai/gpt-4o', {
    modalities: ['text', 'audio'],
    audio: { voice: 'alloy', format: 'wav' },
  });
  expect(audio.status).toBe(400);
  expect(JSON.stringify(audio.body)).toContain('body.modalities');
  expect(h.fleet.fakes.openai!.calls).toHaveLength(1);
});

test('a field of the wrong type is a 400 before any call', async () => {
  const res = await chat('openai/gpt-5.5', { verbosity: 'shouty' });
  expect(res.status).toBe(400);
  expect(h.fleet.fakes.openai!.calls).toHaveLength(0);
});

describe('n: several choices', () => {
  const MINI = 'openai/gpt-4o-mini';
  /** gpt-4o-mini's completion price per token (config/chat-models.yaml, $0.60 per 1M). */
  const COMPLETION = 0.6e-6;

  test('forwarded where the endpoint lists n; every choice comes back and its tokens are billed', async () => {
    const one = await chat(MINI, { max_tokens: 20 });
    const three = await chat(MINI, { n: 3, max_tokens: 20 });
    expect(three.status).toBe(200);
    expect(lastBody('openai').n).toBe(3);
    expect(three.body.choices.map((c: { index: number }) => c.index)).toEqual([0, 1, 2]);
    const extra = three.body.usage.completion_tokens - one.body.usage.completion_tokens;
    expect(extra).toBe(2 * one.body.usage.completion_tokens);
    expect(three.body.usage.cost - one.body.usage.cost).toBeCloseTo(extra * COMPLETION, 12);
  });

  test('streamed, each choice keeps its index', async () => {
    const res = await chat(MINI, { n: 2, stream: true });
    expect(res.status).toBe(200);
    const indexes = new Set(
      res.text
        .split('\n\n')
        .filter((e) => e.startsWith('data: {'))
        .flatMap((e) => (JSON.parse(e.slice(6)) as { choices: Array<{ index: number }> }).choices.map((c) => c.index)),
    );
    expect(indexes).toEqual(new Set([0, 1]));
  });

  test('a model none of whose endpoints lists n is a 400 naming body.n, before any call; n: 1 is served anywhere', async () => {
    const refused = await chat('anthropic/claude-sonnet-4.5', { n: 2 });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('body.n');
    expect(Object.values(h.fleet.fakes).every((f) => f.calls.length === 0)).toBe(true);
    expect((await chat('anthropic/claude-sonnet-4.5', { n: 1 })).status).toBe(200);
    expect((await chat(MINI, { n: 17 })).status).toBe(400);
  });

  test('the budget reserves the worst case of every choice', async () => {
    // gpt-4o-mini: 1000 completion tokens cost $0.0006; a budget of $0.001 fits one choice, not three.
    const { secret } = await createInferenceKey(h.gw, { name: 'small budget', limit: 0.001 });
    const send = (n: number) =>
      request(h.gw.app)
        .post('/api/v1/chat/completions')
        .set('Authorization', `Bearer ${secret}`)
        .send({ model: MINI, messages: [{ role: 'user', content: 'hello' }], max_tokens: 1000, n });
    expect((await send(1)).status).toBe(200);
    expect((await send(3)).status).toBe(402);
  });
});
