/**
 * Parameter fidelity (issue 58 item 6): each chat field OpenAI-compatible servers take only on
 * some models is forwarded where the endpoint's catalog entry lists it, never elsewhere (a server
 * refuses a parameter it lacks), and with `provider.require_parameters` an endpoint lacking it is
 * no candidate; `transforms` and audio output, which the gateway cannot honour, are 400s naming them.
 */
import request from 'supertest';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';

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
