/**
 * The official clients against a gateway listening on 127.0.0.1 with fake upstreams behind it:
 * the `openai` npm client (`embeddings.create`, its default base64 and explicit float) and the
 * ESM-only `@openrouter/sdk` (`embeddings.generate`, `embeddings.listModels`), the latter run in a
 * child process because jest loads our code as CommonJS.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { fakeVector } from '../fakes/wires';

let h: GatewayHarness;
let baseURL: string;
beforeAll(async () => {
  h = await startGatewayHarness({ listen: true });
  baseURL = h.baseUrl as string;
});
afterAll(() => h.close());

describe('openai npm client', () => {
  const client = () => new OpenAI({ apiKey: h.key, baseURL, maxRetries: 0 });

  test('embeddings.create with the default encoding (the client asks for base64 and decodes it)', async () => {
    h.fleet.resetAll();
    const res = await client().embeddings.create({ model: 'mistralai/mistral-embed', input: ['abc', 'de'] });
    expect(h.fleet.fakes.mistral!.calls).toHaveLength(1);
    expect(res.object).toBe('list');
    expect(res.model).toBe('mistralai/mistral-embed');
    expect(res.data.map((d) => d.embedding)).toEqual([fakeVector(3), fakeVector(2)]);
    expect(res.usage).toMatchObject({ prompt_tokens: 5, total_tokens: 5 });
  });

  test('embeddings.create with encoding_format float and dimensions', async () => {
    const res = await client().embeddings.create({
      model: 'openai/text-embedding-3-small',
      input: 'hello',
      encoding_format: 'float',
      dimensions: 5,
    });
    expect(res.data[0]!.embedding).toEqual(fakeVector(5, 5));
    expect((res as unknown as { provider: string }).provider).toBe('OpenAI');
  });

  test('errors arrive as the client’s typed errors with our status', async () => {
    await expect(client().embeddings.create({ model: 'nobody/nothing', input: 'x' })).rejects.toMatchObject({
      status: 404,
    });
    h.fleet.fakes.voyage!.setSticky({ status: 529 });
    await expect(client().embeddings.create({ model: 'voyage/voyage-3.5', input: 'x' })).rejects.toMatchObject({
      status: 529,
    });
    h.fleet.fakes.voyage!.setSticky(null);
  });
});

describe('@openrouter/sdk', () => {
  test('embeddings.generate and embeddings.listModels validate against the gateway', async () => {
    h.fleet.resetAll();
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(__dirname, 'openrouter-sdk.mjs')], {
      env: { ...process.env, SERVER_URL: baseURL, API_KEY: h.key },
      timeout: 20_000,
    });
    const out = JSON.parse(stdout);
    expect(out.error).toBeUndefined();
    expect(out.generate).toMatchObject({
      object: 'list',
      model: 'baai/bge-m3',
      id: expect.stringMatching(/^gen-emb-/),
      data: [
        { object: 'embedding', index: 0, embedding: fakeVector(5) },
        { object: 'embedding', index: 1, embedding: fakeVector(6) },
      ],
      usage: { promptTokens: 11, totalTokens: 11 },
    });
    expect(h.fleet.fakes.nebius!.calls).toHaveLength(1);
    expect(h.fleet.fakes.deepinfra!.calls).toHaveLength(0);
    expect(typeof out.base64.data[0].embedding).toBe('string');
    expect(out.models.totalCount).toBe(8);
    expect(out.models.data).toHaveLength(8);
    expect(out.models.data[0]).toMatchObject({
      id: 'openai/text-embedding-3-small',
      pricing: { prompt: '0.00000002' },
    });
    expect(out.models.links).toEqual({ next: null });
    expect(out.paged.data).toHaveLength(5);
    expect(out.paged.links.next).toBe('/api/v1/embeddings/models?offset=5&limit=5');
    expect(out.notFound).toEqual({ name: 'NotFoundResponseError', statusCode: 404 });
  });
});
