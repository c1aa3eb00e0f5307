/**
 * Every field of the request's `provider` object through HTTP against fake upstreams, on the
 * default catalog's multi-provider models:
 *   baai/bge-m3: deepinfra ($0.01/M, 9000 tok/s, 150 ms, keeps no data), nebius ($0.01/M, 5000,
 *   250 ms, ZDR), together ($0.016/M, 7000, 200 ms, retains data); all fp16, no `dimensions`.
 *   qwen/qwen3-embedding-8b: deepinfra (fp8) and nebius (fp16), both with `dimensions`.
 */
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';

const BGE = 'baai/bge-m3';
const QWEN = 'qwen/qwen3-embedding-8b';

let h: GatewayHarness;
beforeAll(async () => {
  // The breaker is tested elsewhere; here failures must not open circuits between tests.
  h = await startGatewayHarness({ overrides: { breaker: { failureThreshold: 1000, cooldownMs: 1000 } } });
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => h.fleet.resetAll());

/** Which fakes were called, in call order (each fake records its own calls; one call each here). */
function called(): string[] {
  return Object.entries(h.fleet.fakes)
    .flatMap(([slug, f]) => f.calls.map(() => slug))
    .sort((a, b) => order.indexOf(a) - order.indexOf(b));
}
let order: string[] = [];
async function route(body: Record<string, unknown>) {
  const res = await h.post({ input: 'hello', model: BGE, ...body });
  order = (res.body.error?.metadata?.attempts ?? []).map((a: { provider: string }) => a.provider);
  return res;
}
const fail = (...slugs: string[]) => slugs.forEach((s) => h.fleet.fakes[s]!.setSticky({ status: 500 }));

test('default: cheapest first, catalog order among equal prices', async () => {
  const res = await route({});
  expect(res.status).toBe(200);
  expect(res.body.provider).toBe('DeepInfra');
  expect(called()).toEqual(['deepinfra']);
});

test('order: slugs and display names, case-insensitive, then the rest as fallbacks', async () => {
  expect((await route({ provider: { order: ['together'] } })).body.provider).toBe('Together');
  expect((await route({ provider: { order: ['Nebius AI Studio'] } })).body.provider).toBe('Nebius AI Studio');
  expect((await route({ provider: { order: ['TOGETHER', 'nebius'] } })).body.provider).toBe('Together');
  h.fleet.resetAll();
  fail('together', 'nebius');
  const res = await route({ provider: { order: ['together', 'nebius'] } });
  expect(res.status).toBe(200);
  expect(res.body.provider).toBe('DeepInfra');
  expect(h.fleet.fakes.together!.calls).toHaveLength(1);
  expect(h.fleet.fakes.nebius!.calls).toHaveLength(1);
});

test('allow_fallbacks defaults to true; false → only the first candidate', async () => {
  fail('deepinfra');
  expect((await route({})).body.provider).toBe('Nebius AI Studio');
  h.fleet.fakes.nebius!.reset();
  const res = await route({ provider: { allow_fallbacks: false } });
  expect(res.status).toBe(502);
  expect(res.body.error.metadata.attempts).toEqual([{ provider: 'deepinfra', outcome: 'server', status: 500 }]);
  expect(h.fleet.fakes.nebius!.calls).toHaveLength(0);
});

test('allow_fallbacks false with order → only the order list is tried', async () => {
  fail('together', 'nebius');
  const res = await route({ provider: { order: ['together', 'nebius'], allow_fallbacks: false } });
  expect(res.status).toBe(502);
  expect(res.body.error.metadata.attempts.map((a: { provider: string }) => a.provider)).toEqual(['together', 'nebius']);
  expect(h.fleet.fakes.deepinfra!.calls).toHaveLength(0);
});

test('only: allow-list (no fallback outside it)', async () => {
  expect((await route({ provider: { only: ['nebius'] } })).body.provider).toBe('Nebius AI Studio');
  fail('nebius');
  expect((await route({ provider: { only: ['Nebius AI Studio'] } })).status).toBe(502);
  expect(h.fleet.fakes.deepinfra!.calls).toHaveLength(0);
  expect((await route({ provider: { only: ['nobody'] } })).status).toBe(404);
});

test('ignore: deny-list', async () => {
  expect((await route({ provider: { ignore: ['DeepInfra'] } })).body.provider).toBe('Nebius AI Studio');
  expect((await route({ provider: { ignore: ['deepinfra', 'nebius', 'together'] } })).status).toBe(404);
});

test('require_parameters: endpoints that cannot honour a parameter are excluded only when set', async () => {
  const loose = await route({ dimensions: 4 });
  expect(loose.status).toBe(200);
  expect(h.fleet.fakes.deepinfra!.calls[0]!.body.dimensions).toBeUndefined();
  const strict = await route({ dimensions: 4, provider: { require_parameters: true } });
  expect(strict.status).toBe(404);
  const qwen = await route({ model: QWEN, dimensions: 4, provider: { require_parameters: true } });
  expect(qwen.status).toBe(200);
  expect(qwen.body.data[0].embedding).toHaveLength(4);
  const inputType = await route({
    model: 'openai/text-embedding-3-small',
    input_type: 'search_query',
    provider: { require_parameters: true },
  });
  expect(inputType.status).toBe(404);
  expect((await route({ model: 'openai/text-embedding-3-small', input_type: 'search_query' })).status).toBe(200);
});

test('data_collection deny → only endpoints that keep no data', async () => {
  expect((await route({ provider: { order: ['together'], data_collection: 'deny' } })).body.provider).toBe('DeepInfra');
  expect((await route({ provider: { order: ['together'], data_collection: 'allow' } })).body.provider).toBe('Together');
  expect((await route({ model: 'openai/text-embedding-3-small', provider: { data_collection: 'deny' } })).status).toBe(
    404,
  );
});

test('zdr → only zero-data-retention endpoints', async () => {
  expect((await route({ provider: { zdr: true } })).body.provider).toBe('Nebius AI Studio');
  expect((await route({ provider: { zdr: false } })).body.provider).toBe('DeepInfra');
});

test('quantizations filter', async () => {
  expect((await route({ model: QWEN, provider: { quantizations: ['fp16'] } })).body.provider).toBe('Nebius AI Studio');
  expect((await route({ model: QWEN, provider: { quantizations: ['fp8', 'int8'] } })).body.provider).toBe('DeepInfra');
  expect((await route({ model: QWEN, provider: { quantizations: ['bf16'] } })).status).toBe(404);
});

test('sort: price, throughput, latency, and the object form', async () => {
  fail('deepinfra');
  await route({ provider: { sort: 'throughput' } });
  expect(h.fleet.fakes.together!.calls).toHaveLength(1);
  expect(h.fleet.fakes.nebius!.calls).toHaveLength(0);
  h.fleet.resetAll();
  fail('deepinfra');
  expect((await route({ provider: { sort: { by: 'latency', partition: 'none' } } })).body.provider).toBe('Together');
  h.fleet.resetAll();
  fail('deepinfra');
  expect((await route({ provider: { sort: 'price' } })).body.provider).toBe('Nebius AI Studio');
  h.fleet.resetAll();
  expect((await route({ provider: { sort: { by: 'throughput' }, ignore: ['deepinfra'] } })).body.provider).toBe(
    'Together',
  );
  expect((await route({ provider: { sort: 'exacto' } })).status).toBe(200);
});

test('max_price in USD per 1M tokens, numbers or strings', async () => {
  expect((await route({ provider: { order: ['together'], max_price: { prompt: 0.012 } } })).body.provider).toBe(
    'DeepInfra',
  );
  expect((await route({ provider: { order: ['together'], max_price: { prompt: '0.016' } } })).body.provider).toBe(
    'Together',
  );
  expect((await route({ provider: { max_price: { prompt: '0.005' } } })).status).toBe(404);
  expect((await route({ provider: { max_price: { prompt: 1, completion: 2, request: 0, image: 0 } } })).status).toBe(
    200,
  );
  // exponent strings are numbers too
  expect((await route({ provider: { order: ['together'], max_price: { prompt: '1.6e-2' } } })).body.provider).toBe(
    'Together',
  );
  expect((await route({ provider: { max_price: { prompt: '5E-3' } } })).status).toBe(404);
  expect((await route({ model: 'cohere/embed-v4.0', provider: { max_price: { image: '0.0001' } } })).status).toBe(404);
});

test('preferred_min_throughput / preferred_max_latency reorder softly and never exclude', async () => {
  const base = { ignore: ['deepinfra'] };
  expect((await route({ provider: { ...base } })).body.provider).toBe('Nebius AI Studio');
  expect((await route({ provider: { ...base, preferred_min_throughput: 6000 } })).body.provider).toBe('Together');
  expect((await route({ provider: { ...base, preferred_max_latency: { p50: 0.21 } } })).body.provider).toBe('Together');
  h.fleet.resetAll();
  fail('together');
  const res = await route({ provider: { ...base, preferred_min_throughput: { p50: 6000, p90: 1000 } } });
  expect(res.status).toBe(200);
  expect(res.body.provider).toBe('Nebius AI Studio');
  expect(
    (await route({ provider: { ...base, preferred_min_throughput: 1e9, preferred_max_latency: 0.001 } })).status,
  ).toBe(200);
});

test('null fields are ignored', async () => {
  const res = await route({
    provider: {
      order: null,
      allow_fallbacks: null,
      require_parameters: null,
      data_collection: null,
      zdr: null,
      enforce_distillable_text: null,
      only: null,
      ignore: null,
      quantizations: null,
      sort: null,
      max_price: null,
      preferred_min_throughput: null,
      preferred_max_latency: null,
    },
  });
  expect(res.status).toBe(200);
  expect(res.body.provider).toBe('DeepInfra');
});
