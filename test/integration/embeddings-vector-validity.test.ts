/**
 * Vectors an upstream answers are checked before a client or the cache sees them: base64 that
 * decodes to NaN or ±Infinity, floats outside float32's range (which base64 would turn into
 * ±Infinity) and answers whose vectors differ in length are invalid upstream bodies (the next
 * provider is tried, else 502); the cache never stores nor serves such a vector, and an answer
 * assembled from cache hits and fresh vectors never mixes lengths. DeepInfra is made a base64
 * passthrough provider here so baai/bge-m3 (deepinfra → nebius → together) can show fallback.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { bearer } from '../helpers/gateway';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { fakeVector, float32Base64, openaiEmbeddings } from '../fakes/wires';
import { tempDir } from '../helpers/temp-dir';
import { fromBase64Float32 } from '../../src/embeddings/encode';

const BGE = 'baai/bge-m3';
const SMALL = 'openai/text-embedding-3-small';
const WEEK = 7 * 24 * 3600 * 1000;

/** A copy of the catalog's providers where DeepInfra passes base64 through, as OpenAI does. */
function providersWithBase64DeepInfra(): string {
  const text = readFileSync('config/providers.yaml', 'utf8').replace(
    '    base_url: https://api.deepinfra.com/v1/openai\n',
    '    base_url: https://api.deepinfra.com/v1/openai\n    base64_passthrough: true\n',
  );
  expect(text).toContain('base64_passthrough: true\n  - slug: nebius');
  const file = path.join(tempDir('sy-providers-'), 'providers.yaml');
  writeFileSync(file, text);
  return file;
}

/** Little-endian float32 bytes of `values`, base64: `[0.5, NaN]` and the like, which `Float32Array` keeps. */
const bytesOf = (values: number[]) => float32Base64(values);

const lengths = (res: request.Response) =>
  (res.body.data as Array<{ embedding: number[] | string }>).map(
    (d) => (typeof d.embedding === 'string' ? fromBase64Float32(d.embedding) : d.embedding).length,
  );

describe('vectors from the upstream are validated', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({
      overrides: {
        catalog: { modelsFile: 'config/models.yaml', providersFile: providersWithBase64DeepInfra() },
        breaker: { failureThreshold: 1000, cooldownMs: 1000 },
      },
    });
    const res = await request(h.gw.app)
      .patch(`/api/v1/workspaces/${h.gw.defaultWorkspaceId}`)
      .set('Authorization', bearer(h.gw.mgmtKey))
      .send({ is_embeddings_cache_enabled: true });
    expect(res.status).toBe(200);
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.fleet.resetAll();
    h.clock.now += 2 * WEEK; // every earlier test's cache entries have expired
  });

  const deepinfra = () => h.fleet.fakes.deepinfra!;

  test.each([
    ['NaN', [0.5, NaN, 0.25]],
    ['+Infinity', [Infinity, 0.5]],
    ['-Infinity', [0.5, -Infinity]],
  ])('base64 decoding to %s falls back to the next provider, and is a 502 when none is left', async (_name, values) => {
    deepinfra().setSticky(openaiEmbeddings(() => bytesOf(values)));
    const res = await h.post({ model: BGE, input: 'poison', encoding_format: 'base64' });
    expect([res.status, res.body.provider]).toEqual([200, 'Nebius AI Studio']);
    expect(deepinfra().calls[0]!.body.encoding_format).toBe('base64');
    expect(fromBase64Float32(res.body.data[0].embedding)).toEqual(fakeVector(6));
    const alone = await h.post({
      model: BGE,
      input: 'poison 2',
      encoding_format: 'base64',
      provider: { only: ['deepinfra'] },
    });
    expect([alone.status, alone.body.error?.message]).toEqual([502, 'Provider returned error']);
  });

  test('base64 that is not whole float32 values, or not canonical, is invalid too', async () => {
    for (const bad of ['AAAA', 'AAAAAA==', 'AAAAAA']) {
      deepinfra().queue(openaiEmbeddings(() => bad));
      const res = await h.post({
        model: BGE,
        input: `odd ${bad}`,
        encoding_format: 'base64',
        provider: { only: ['deepinfra'] },
      });
      expect([bad, res.status]).toEqual([bad, bad === 'AAAAAA==' ? 200 : 502]);
    }
  });

  test('a finite float outside float32 (1e39) is invalid for float and base64 requests alike', async () => {
    for (const encoding of ['float', 'base64'] as const) {
      h.fleet.fakes.nebius!.queue(
        openaiEmbeddings(() => [0.5, 1e39]),
        openaiEmbeddings(() => [-3.5e38, 0.5]),
      );
      const only = await h.post({
        model: BGE,
        input: `huge ${encoding}`,
        encoding_format: encoding,
        provider: { only: ['nebius'] },
      });
      expect([encoding, only.status]).toEqual([encoding, 502]);
      const fallback = await h.post({
        model: BGE,
        input: `huge ${encoding}`,
        encoding_format: encoding,
        provider: { order: ['nebius', 'together'] },
      });
      expect([encoding, fallback.status, fallback.body.provider]).toEqual([encoding, 200, 'Together']);
      expect(fallback.text).not.toMatch(/Infinity|null|e\+?3[89]/i);
    }
    // The largest float32 and values that round to it are fine.
    h.fleet.fakes.nebius!.queue(openaiEmbeddings(() => [3.4028234663852886e38, -3.4028235e38]));
    const edge = await h.post({ model: BGE, input: 'edge', encoding_format: 'base64', provider: { only: ['nebius'] } });
    expect(edge.status).toBe(200);
    expect(fromBase64Float32(edge.body.data[0].embedding)).toEqual([3.4028234663852886e38, -3.4028234663852886e38]);
  });

  test('an answer whose vectors differ in length is invalid → next provider', async () => {
    deepinfra().setSticky(openaiEmbeddings((e, i) => (e as number[]).slice(0, 8 - i)));
    const res = await h.post({ model: BGE, input: ['first', 'second'] });
    expect([res.status, res.body.provider, lengths(res)]).toEqual([200, 'Nebius AI Studio', [8, 8]]);
    const alone = await h.post({ model: BGE, input: ['first', 'second'], provider: { only: ['deepinfra'] } });
    expect(alone.status).toBe(502);
  });

  test('an answer not as long as the dimensions asked of an endpoint that honours them is invalid', async () => {
    h.fleet.fakes.openai!.queue(openaiEmbeddings((e) => (e as number[]).slice(0, 3)));
    const res = await h.post({ model: SMALL, input: 'dims', dimensions: 4 });
    expect(res.status).toBe(502);
    const ok = await h.post({ model: SMALL, input: 'dims', dimensions: 4 });
    expect([ok.status, lengths(ok)]).toEqual([200, [4]]);
  });

  test('the cache never stores nor serves a poisoned vector', async () => {
    // Only one provider allowed: before validation, the NaN answer was a 200 and its entry a base64 HIT.
    deepinfra().queue(openaiEmbeddings(() => bytesOf([NaN, 0.5])));
    const poisoned = await h.post({
      model: BGE,
      input: 'cached poison',
      encoding_format: 'base64',
      provider: { only: ['deepinfra'] },
    });
    expect(poisoned.status).toBe(502);
    h.fleet.fakes.nebius!.queue(openaiEmbeddings(() => [1e39, 0.5]));
    expect((await h.post({ model: BGE, input: 'cached huge', provider: { only: ['nebius'] } })).status).toBe(502);
    for (const input of ['cached poison', 'cached huge']) {
      const again = await h.post({ model: BGE, input, encoding_format: 'base64' });
      expect([input, again.status, again.headers['x-switchyard-cache']]).toEqual([input, 200, 'MISS']);
      expect(fromBase64Float32(again.body.data[0].embedding)).toEqual(fakeVector(input.length));
    }
  });

  test('cache hits of different lengths are never served together', async () => {
    await h.post({ model: BGE, input: 'eight', provider: { only: ['deepinfra'] } }).expect(200);
    deepinfra().queue(openaiEmbeddings((e) => (e as number[]).slice(0, 7)));
    expect(lengths(await h.post({ model: BGE, input: 'seven', provider: { only: ['deepinfra'] } }))).toEqual([7]);
    // Both inputs are cached, at 8 and 7 floats: the answer must still be one length.
    const both = await h.post({ model: BGE, input: ['eight', 'seven'], provider: { only: ['deepinfra'] } });
    expect([both.status, both.headers['x-switchyard-cache'], lengths(both)]).toEqual([200, 'PARTIAL', [8, 8]]);
    expect(deepinfra().calls.map((c) => c.body.input)).toEqual([['eight'], ['seven'], ['seven']]);
    // The refreshed entry now agrees: a full hit, one length.
    const hit = await h.post({ model: BGE, input: ['seven', 'eight'], encoding_format: 'base64' });
    expect([hit.headers['x-switchyard-cache'], lengths(hit)]).toEqual(['HIT', [8, 8]]);
  });

  test('cache hits and fresh vectors of different lengths are never mixed: the hits are embedded again', async () => {
    await h.post({ model: BGE, input: 'cached', provider: { only: ['deepinfra'] } }).expect(200);
    // The provider now answers 7 floats (a new model version, or an endpoint that ignores `dimensions`).
    deepinfra().setSticky(openaiEmbeddings((e) => (e as number[]).slice(0, 7)));
    const mixed = await h.post({ model: BGE, input: ['cached', 'fresh'], provider: { only: ['deepinfra'] } });
    expect([mixed.status, lengths(mixed)]).toEqual([200, [7, 7]]);
    expect(deepinfra().calls.map((c) => c.body.input)).toEqual([['cached'], ['fresh'], ['cached']]);
    // Both inputs billed, none counted as cached; the stale entry was replaced.
    expect(mixed.body.usage).toMatchObject({ prompt_tokens: 11, prompt_tokens_details: { cached_tokens: 0 } });
    const hit = await h.post({ model: BGE, input: ['fresh', 'cached'] });
    expect([hit.headers['x-switchyard-cache'], lengths(hit)]).toEqual(['HIT', [7, 7]]);
    // If the second call does not agree either, the request fails instead of mixing lengths.
    deepinfra().setSticky(null);
    deepinfra().queue(openaiEmbeddings((e) => (e as number[]).slice(0, 6)));
    const failed = await h.post({ model: BGE, input: ['cached', 'new one'], provider: { only: ['deepinfra'] } });
    expect(failed.status).toBe(502);
  });
});
