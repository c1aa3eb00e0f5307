/**
 * Issue 32 item 10: every model's `links.details` (`/api/v1/models/{author}/{slug}/endpoints`)
 * answers with the model's endpoints (provider, prices, parameters, circuit state now), under
 * auth; an unknown model answers the spec's 404 saying which model and where the list is.
 */
import request from 'supertest';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { bearer } from '../helpers/gateway';
import { expectSchema } from '../helpers/expect-schema';

let h: GatewayHarness;
let noKeys: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness({ overrides: { breaker: { failureThreshold: 1, cooldownMs: 10_000 } } });
  noKeys = await startGatewayHarness({ overrides: { providers: { OPENAI: { baseUrl: 'http://127.0.0.1:9/v1' } } } });
});
afterAll(async () => {
  await h.close();
  await noKeys.close();
});

const get = (x: GatewayHarness, path: string, secret = x.key) =>
  request(x.gw.app).get(path).set('Authorization', bearer(secret));

test("every model's links.details answers 200 with its endpoints", async () => {
  const models = (await get(h, '/api/v1/embeddings/models').expect(200)).body.data as Array<{
    id: string;
    links: { details: string };
  }>;
  expect(models.length).toBeGreaterThan(3);
  for (const m of models) {
    const res = await get(h, m.links.details);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: m.id,
      name: expect.any(String),
      architecture: { output_modalities: ['embeddings'] },
    });
    expect(res.body.data.endpoints.length).toBeGreaterThan(0);
    for (const e of res.body.data.endpoints) {
      expect(e).toMatchObject({
        provider_name: expect.any(String),
        tag: expect.any(String),
        pricing: { prompt: expect.stringMatching(/^\d/), completion: '0' },
        supported_parameters: expect.any(Array),
        configured: true,
        status: 0,
        circuit: { state: 'closed', consecutive_failures: 0 },
      });
    }
  }
});

test('bge-m3 lists its three providers with their own prices; a failed provider shows its open circuit', async () => {
  const before = (await get(h, '/api/v1/models/baai/bge-m3/endpoints').expect(200)).body.data.endpoints;
  expect(before.map((e: { tag: string }) => e.tag).sort()).toEqual(['deepinfra', 'nebius', 'together']);
  expect(before.find((e: { tag: string }) => e.tag === 'together').pricing.prompt).toBe('0.000000016');
  h.fleet.fakes.deepinfra!.queue({ status: 500 });
  expect((await h.post({ model: 'baai/bge-m3', input: 'x' })).status).toBe(200); // fell back
  const after = (await get(h, '/api/v1/models/baai/bge-m3/endpoints').expect(200)).body.data.endpoints;
  expect(after.find((e: { tag: string }) => e.tag === 'deepinfra')).toMatchObject({
    status: -1,
    circuit: { state: 'open', consecutive_failures: 1 },
  });
  h.clock.now += 11_000;
  const cooled = (await get(h, '/api/v1/models/baai/bge-m3/endpoints').expect(200)).body.data.endpoints;
  expect(cooled.find((e: { tag: string }) => e.tag === 'deepinfra').circuit.state).toBe('half_open');
  // Reading the state took no probe: the next request still gets it, and it closes the circuit.
  expect((await h.post({ model: 'baai/bge-m3', input: 'x' })).body.provider).toBe('DeepInfra');
});

test('an endpoint whose provider has no key is listed as not usable here', async () => {
  const res = await get(noKeys, '/api/v1/models/openai/text-embedding-3-small/endpoints').expect(200);
  expect(res.body.data.endpoints[0]).toMatchObject({ tag: 'openai', configured: false, status: -2 });
});

test('GET /providers lists every catalog provider with the models it serves and each circuit now', async () => {
  const before = (await get(h, '/api/v1/providers').expect(200)).body.data as Array<{
    slug: string;
    configured: boolean;
    endpoints: Array<{ model: string; circuit: { state: string } }>;
  }>;
  const models = (await get(h, '/api/v1/models?output_modalities=all').expect(200)).body.data as Array<{ id: string }>;
  const served = new Set(before.flatMap((p) => p.endpoints.map((e) => e.model)));
  expect([...served].sort()).toEqual(models.map((m) => m.id).sort());
  const deepinfra = before.find((p) => p.slug === 'deepinfra');
  expect(deepinfra).toMatchObject({ name: 'DeepInfra', configured: true, privacy_policy_url: null });
  expect(deepinfra?.endpoints.map((e) => e.model)).toContain('baai/bge-m3');
  h.fleet.fakes.deepinfra!.queue({ status: 500 });
  await h.post({ model: 'baai/bge-m3', input: 'x' });
  const afterRes = await get(h, '/api/v1/providers').expect(200);
  expectSchema(afterRes.body, 'providers.list.response');
  const after = afterRes.body.data as typeof before;
  const endpoint = after.find((p) => p.slug === 'deepinfra')?.endpoints.find((e) => e.model === 'baai/bge-m3');
  expect(endpoint?.circuit).toEqual({ state: 'open', consecutive_failures: 1 });
  const unkeyed = (await get(noKeys, '/api/v1/providers').expect(200)).body.data as typeof before;
  expect(unkeyed.find((p) => p.slug === 'openai')?.configured).toBe(false);
  expect((await request(h.gw.app).get('/api/v1/providers')).status).toBe(401);
});

test('needs a key: none → 401', async () => {
  const res = await request(h.gw.app).get('/api/v1/models/baai/bge-m3/endpoints');
  expect(res.status).toBe(401);
});

test.each([
  ['/api/v1/models/nobody/nothing/endpoints', 'nobody/nothing'],
  ['/api/v1/models/google/gemini-1.5-flash/endpoints', 'google/gemini-1.5-flash'],
  ['/api/v1/models/%2e%2e/x/endpoints', '../x'],
])('%s → 404 naming the model and the list', async (path, model) => {
  const res = await get(h, path);
  expect(res.status).toBe(404);
  expect(res.body.error).toMatchObject({
    code: 404,
    message: 'Resource not found',
    metadata: { model, models_list: '/api/v1/models' },
  });
});

test('POST /embeddings with an unknown model → 404 naming it and where the list is', async () => {
  const res = await h.post({ model: 'nobody/no-such-model', input: 'x' });
  expect(res.status).toBe(404);
  expect(res.body.error).toEqual({
    code: 404,
    message: 'Resource not found',
    metadata: {
      model: 'nobody/no-such-model',
      reason: expect.stringContaining('/api/v1/embeddings/models'),
      models_list: '/api/v1/embeddings/models',
    },
  });
});
