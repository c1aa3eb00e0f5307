/**
 * Requests that can never succeed answer 404 with `error.availability` (not retryable), as the
 * hosted service does (reference notes §0.1); endpoints that exist but cannot be used now (every
 * circuit open) answer 503 `temporarily_unavailable` with `Retry-After` (issue 33 item 5: these
 * all answered 503 without Retry-After, which clients retry for up to an hour). An input modality
 * no endpoint of the model accepts is a 404 `no_endpoints`, as the hosted service answers "No
 * endpoints found that support image input"; so is a model none of whose providers has a key
 * (issue 43 item 11: a retryable 503 there had clients retrying what only an operator can fix).
 */
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';

const BGE = 'baai/bge-m3';
const SMALL = 'openai/text-embedding-3-small';
const IMAGE_INPUT = [
  {
    content: [
      { type: 'text', text: 'a cat' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ],
  },
];

let h: GatewayHarness;
let noKeys: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness({ overrides: { breaker: { failureThreshold: 1, cooldownMs: 20_000 } } });
  // OpenAI without a key: its endpoints exist, but cannot be used.
  noKeys = await startGatewayHarness({ overrides: { providers: { OPENAI: { baseUrl: 'http://127.0.0.1:9/v1' } } } });
});
afterAll(async () => {
  await h.close();
  await noKeys.close();
});
beforeEach(() => h.fleet.resetAll());

const nobodyCalled = (x: GatewayHarness) => Object.values(x.fleet.fakes).every((f) => f.calls.length === 0);

test.each([
  [
    'only names no provider of the model',
    { model: BGE, provider: { only: ['nonexistent'] } },
    'constraint_filtered',
    'provider.only',
  ],
  [
    'ignore names every provider',
    { model: BGE, provider: { ignore: ['deepinfra', 'nebius', 'together'] } },
    'constraint_filtered',
    'provider.ignore',
  ],
  [
    'max_price below every endpoint',
    { model: BGE, provider: { max_price: { prompt: '0.005' } } },
    'constraint_filtered',
    'provider.max_price',
  ],
  [
    'data_collection deny with no such endpoint',
    { model: SMALL, provider: { data_collection: 'deny' } },
    'constraint_filtered',
    'provider.data_collection',
  ],
  [
    'order naming a provider not serving the model, no fallbacks',
    { model: BGE, provider: { order: ['openai'], allow_fallbacks: false } },
    'constraint_filtered',
    'provider.order',
  ],
  [
    'require_parameters with a parameter no endpoint honours',
    { model: BGE, dimensions: 4, provider: { require_parameters: true } },
    'constraint_filtered',
    'provider.require_parameters',
  ],
  [
    'quantizations no endpoint has',
    { model: BGE, provider: { quantizations: ['int4'] } },
    'constraint_filtered',
    'provider.quantizations',
  ],
  ['an image to a text-only model', { model: SMALL, input: IMAGE_INPUT }, 'no_endpoints', 'input'],
  [
    'token ids to a model without token input',
    { model: 'voyage/voyage-3.5', input: [1, 2, 3] },
    'no_endpoints',
    'input',
  ],
])('%s → 404 with availability, not retryable', async (_label, body, code, field) => {
  const res = await h.post({ input: 'hello', ...body });
  expect(res.status).toBe(404);
  expect(res.headers['retry-after']).toBeUndefined();
  expect(res.body.error.code).toBe(404);
  expect(res.body.error.message).toBe('Resource not found');
  expect(res.body.error.availability).toEqual({
    code,
    retryable: false,
    requested_models: [body.model],
    constraint: { field, detail: expect.any(String) },
  });
  expect(nobodyCalled(h)).toBe(true);
});

test('a model none of whose providers has a key configured → 404 no_endpoints, not retryable, naming the variable to set', async () => {
  const res = await noKeys.post({ model: SMALL, input: 'hello' });
  expect(res.status).toBe(404);
  expect(res.headers['retry-after']).toBeUndefined();
  expect(res.body.error.code).toBe(404);
  expect(res.body.error.message).toBe(
    'Resource not found: no provider of openai/text-embedding-3-small is configured; set OPENAI_API_KEY',
  );
  expect(res.body.error.metadata).toEqual({
    reason: 'no provider of openai/text-embedding-3-small is configured; set OPENAI_API_KEY',
    set_one_of: ['OPENAI_API_KEY'],
  });
  expect(res.body.error.availability).toEqual({
    code: 'no_endpoints',
    retryable: false,
    requested_models: [SMALL],
    affected_providers: ['openai'],
  });
  expect(nobodyCalled(noKeys)).toBe(true);
  // A constraint that excludes everything is still reported as that constraint.
  const only = await noKeys.post({ model: SMALL, input: 'hello', provider: { only: ['nobody'] } });
  expect(only.status).toBe(404);
  expect(only.body.error.availability.code).toBe('constraint_filtered');
});

test('every circuit open → 503 temporarily_unavailable with Retry-After from the breaker cooldown', async () => {
  h.fleet.fakes.openai!.setSticky({ status: 500 });
  expect((await h.post({ model: SMALL, input: 'hello' })).status).toBe(502);
  const res = await h.post({ model: SMALL, input: 'hello' });
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe('20');
  expect(res.body.error.availability).toMatchObject({
    code: 'temporarily_unavailable',
    retryable: true,
    retry_after: 20,
    affected_providers: ['openai'],
  });
  h.clock.now += 25_000;
});

describe('an upstream vector holding a number a double cannot hold (1e999)', () => {
  const body = (vector: string) =>
    `{"object":"list","data":[{"object":"embedding","index":0,"embedding":${vector}}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`;

  test('is an invalid upstream body: 502 when no other candidate answers', async () => {
    h.fleet.fakes.openai!.queue({ rawBody: body('[0.25,1e999]') });
    const res = await h.post({ model: SMALL, input: 'hello', provider: { allow_fallbacks: false } });
    expect(res.status).toBe(502);
    expect(res.text).not.toMatch(/Infinity|1e999/);
    h.clock.now += 25_000; // past the cooldown of the circuit that failure opened
  });

  test('falls back to the next provider when there is one', async () => {
    h.fleet.fakes.deepinfra!.queue({ rawBody: body('[-1e400,0.5]') });
    const res = await h.post({ model: BGE, input: 'hello' });
    expect(res.status).toBe(200);
    expect(res.body.provider).not.toBe('DeepInfra');
    expect(res.body.data[0].embedding.every(Number.isFinite)).toBe(true);
    h.clock.now += 25_000;
  });
});
