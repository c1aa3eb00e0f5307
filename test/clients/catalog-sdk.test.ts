/**
 * Issue 45 item 4: the `@openrouter/sdk` calls over the gateway's catalog routes parse with the
 * SDK's own schemas: `endpoints.list` (`/models/{author}/{slug}/endpoints`, whose endpoints carry
 * the hosted fields the SDK requires, with this organization's recent uptime and latency),
 * `providers.list` and `generations.getGeneration`. Run in a child process: the SDK is ESM-only.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import type { ApiRoute } from '../../src/http/router';
import { API_PREFIX } from '../../src/http/router';
import { callsInDrivers, normalisePath, sdkFunctionRoutes, sdkMethods } from './sdk-routes';

let h: GatewayHarness;
let baseURL: string;
beforeAll(async () => {
  h = await startGatewayHarness({ listen: true });
  baseURL = h.baseUrl as string;
});
afterAll(() => h.close());

interface Percentiles {
  p50: number;
  p75: number;
  p90: number;
  p99: number;
}
interface SdkEndpoint {
  tag: string;
  modelId: string;
  uptimeLast5m: number | null;
  uptimeLast30m: number | null;
  uptimeLast1d: number | null;
  latencyLast30m: Percentiles | null;
  throughputLast30m: Percentiles | null;
  supportsImplicitCaching: boolean;
  supportsToolChoice: Record<string, boolean>;
}

/** What the driver prints: each call's parsed result (SDK field names), or its error. */
interface SdkOutput {
  endpoints: { error?: unknown; data: { id: string; endpoints: SdkEndpoint[] } };
  providers: { error?: unknown; data: Array<{ slug: string; name: string }> };
  generation: { error?: unknown; data: Record<string, unknown> };
  notFound: unknown;
}

async function runSdk(generationId: string): Promise<SdkOutput> {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(__dirname, 'catalog-sdk.mjs')], {
    env: { ...process.env, SERVER_URL: baseURL, API_KEY: h.key, GENERATION_ID: generationId },
    timeout: 20_000,
  });
  return JSON.parse(stdout);
}

test('endpoints.list, providers.list and generations.getGeneration parse with the SDK; endpoints carry recent uptime and latency', async () => {
  // deepinfra: one server error (then the fallback to together answers) and two answers.
  h.fleet.fakes.deepinfra!.queue({ status: 500 });
  const order = { order: ['deepinfra', 'together'] };
  expect((await h.post({ model: 'baai/bge-m3', input: 'a', provider: order })).status).toBe(200);
  expect((await h.post({ model: 'baai/bge-m3', input: 'b', provider: order })).body.provider).toBe('DeepInfra');
  const last = await h.post({ model: 'baai/bge-m3', input: 'c', provider: order });
  expect(last.body.provider).toBe('DeepInfra');
  await h.gw.deps.recorder.flush();

  const out = await runSdk(last.body.id);
  for (const name of ['endpoints', 'providers', 'generation'] as const)
    expect({ name, error: out[name].error }).toEqual({ name, error: undefined });

  const endpoints = out.endpoints;
  expect(endpoints.data.id).toBe('baai/bge-m3');
  const byTag = Object.fromEntries(endpoints.data.endpoints.map((e) => [e.tag, e]));
  expect(Object.keys(byTag).sort()).toEqual(['deepinfra', 'nebius', 'together']);
  for (const e of endpoints.data.endpoints) {
    expect(e).toMatchObject({ modelId: 'baai/bge-m3', supportsImplicitCaching: false, throughputLast30m: null });
    expect(e.supportsToolChoice).toEqual({ auto: false, function: false, none: false, required: false });
  }
  // Uptime in percent, as the hosted API gives it: 2 answers of 3 attempts; the fallback's 1 of 1; nebius unused.
  for (const window of ['uptimeLast5m', 'uptimeLast30m', 'uptimeLast1d'] as const) {
    expect(byTag.deepinfra?.[window]).toBeCloseTo(200 / 3, 6);
    expect(byTag.together?.[window]).toBe(100);
    expect(byTag.nebius?.[window]).toBeNull();
  }
  const latency = byTag.deepinfra?.latencyLast30m;
  expect(latency).toEqual({
    p50: expect.any(Number),
    p75: expect.any(Number),
    p90: expect.any(Number),
    p99: expect.any(Number),
  });
  expect(latency!.p50).toBeGreaterThan(0);
  expect(latency!.p50 <= latency!.p75 && latency!.p75 <= latency!.p90 && latency!.p90 <= latency!.p99).toBe(true);
  expect(byTag.nebius?.latencyLast30m).toBeNull();

  expect(out.providers.data.map((p) => p.slug)).toEqual(
    expect.arrayContaining(['deepinfra', 'together', 'nebius', 'openai']),
  );
  expect(out.generation).toMatchObject({ data: { id: last.body.id, model: 'baai/bge-m3', providerName: 'DeepInfra' } });
  expect(out.notFound).toEqual({ name: 'NotFoundResponseError', statusCode: 404 });
});

test('every SDK method whose route the gateway serves is called by an SDK driver under test/', () => {
  const served = new Set(
    (h.gw.app.locals.apiRoutes as ApiRoute[]).map(
      (r) => `${r.method.toUpperCase()} ${normalisePath(r.template.slice(API_PREFIX.length))}`,
    ),
  );
  const methods = sdkMethods();
  const mapped = methods.filter((m) => served.has(`${m.method} ${m.path}`));
  // Reading the SDK found its namespaces: every generated function for a served route is reached by a method found.
  const servedFunctions = [...sdkFunctionRoutes()]
    .filter(([, r]) => served.has(`${r.method} ${r.path}`))
    .map(([f]) => f);
  expect(servedFunctions.length).toBeGreaterThanOrEqual(30);
  expect(servedFunctions.filter((f) => !methods.some((m) => m.func === f))).toEqual([]);
  const called = callsInDrivers(path.join(__dirname, '..'));
  expect(mapped.map((m) => m.call).filter((c) => !called.has(c))).toEqual([]);
});
