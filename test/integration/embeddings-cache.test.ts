/**
 * The embeddings cache through HTTP, on both stores (in-process LRU and Redis): per-input hits
 * and misses in one batch keep input order and send only the misses upstream; float answers are
 * byte-identical to the upstream's first answer and base64 ones to the uncached path; the key
 * separates dimensions, input_type and tenants; request directives; TTL with the injected clock;
 * provider preferences; corrupt entries; budgets reserve only for the misses; usage, /generation
 * and metrics; a slow or unreachable store is skipped.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { bearer, createInferenceKey } from '../helpers/gateway';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { fakeVector } from '../fakes/wires';
import { KVS, REDIS_URL, describeIf, uniqueId } from '../helpers/services';
import { tcpProxy } from '../../testkit/tcp-proxy';
import { RedisKv } from '../../src/kv/redis';
import { fromBase64Float32 } from '../../src/embeddings/encode';
import { inputKeys } from '../../src/embeddings/cache/keys';
import { EmbeddingsCache } from '../../src/embeddings/cache/cache';
import type { CacheStore } from '../../src/embeddings/cache/store';
import { provisionOrg } from '../../src/orgs/provision';
import type { SpendGuard } from '../../src/budgets/types';
import { roundUsd } from '../../src/catalog/usd';
import { eventually } from '../helpers/eventually';
import { switchable } from '../helpers/switchable';

const SMALL = 'openai/text-embedding-3-small';
const MISTRAL = 'mistralai/mistral-embed';
const PRICE = 0.00000002; // openai/text-embedding-3-small, per token
/** USD for `n` tokens at {@link PRICE}, at the precision costs are answered in (no float noise). */
const usd = (n: number) => roundUsd(n * PRICE);
const WEEK = 7 * 24 * 3600 * 1000;

/** The raw bytes of each `embedding` value of a response body, in order. */
function rawEmbeddings(text: string): string[] {
  return [...text.matchAll(/"embedding":(\[[^\]]*\]|"[^"]*")/g)].map((m) => m[1] as string);
}

/**
 * An OpenAI-wire upstream that prints its floats the way real ones do and float32 cannot
 * reproduce (17 significant digits, exponents, spaces), one vector per input.
 */
async function oddDigitsUpstream(): Promise<{ origin: string; calls: unknown[][]; close(): Promise<void> }> {
  const calls: unknown[][] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const input = (JSON.parse(Buffer.concat(chunks).toString()) as { input: string[] }).input;
      calls.push(input);
      const data = input.map(
        (t, i) =>
          `{"object":"embedding","index":${i},"embedding":[0.10000000000000001, -1.5E-7,${t.length}.0,0.333333333333333314829616256247]}`,
      );
      res.setHeader('content-type', 'application/json');
      res.end(
        `{"object":"list","data":[${data.join(',')}],"model":"mistral-embed","usage":{"prompt_tokens":${input.length * 3},"total_tokens":${input.length * 3}}}`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

async function enableCache(h: GatewayHarness, on: boolean | null = true): Promise<void> {
  const res = await request(h.gw.app)
    .patch(`/api/v1/workspaces/${h.gw.defaultWorkspaceId}`)
    .set('Authorization', bearer(h.gw.mgmtKey))
    .send({ is_embeddings_cache_enabled: on });
  expect([res.status, res.body.data.is_embeddings_cache_enabled]).toEqual([200, on]);
}

const openaiInputs = (h: GatewayHarness) => h.fleet.fakes.openai!.calls.map((c) => c.body.input);

describe.each(KVS)('embeddings cache on the $name store', (kvKind) => {
  let h: GatewayHarness;
  let odd: Awaited<ReturnType<typeof oddDigitsUpstream>>;
  /** The spend guard and cache a test replaces for a while: the gateway is built over these stand-ins. */
  const spend = switchable<SpendGuard>();
  const cache = switchable<EmbeddingsCache>();
  beforeAll(async () => {
    odd = await oddDigitsUpstream();
    h = await startGatewayHarness({
      kv: await kvKind.open(),
      overrides: { providers: { MISTRAL: { baseUrl: `${odd.origin}/v1`, apiKey: 'k' } } },
      wrap: { spend: spend.wrap, embeddingsCache: cache.wrap },
    });
  });
  afterAll(async () => {
    await h.close();
    await odd.close();
  });
  /**
   * One request, answered once the cache writes it started have landed: the cache writes after the
   * answer (write-behind), so the next request's lookup could otherwise race the previous one's write.
   */
  const send = async (body: object, headers?: Record<string, string>) => {
    const res = await h.post(body, headers);
    await h.gw.deps.embeddingsCache.settled();
    return res;
  };
  beforeEach(async () => {
    h.fleet.resetAll();
    h.events.length = 0;
    odd.calls.length = 0;
    h.clock.now += 2 * WEEK; // every earlier test's entries have expired
    await enableCache(h);
  });

  test('off by default (and when switched off): no lookup, no header, every request goes upstream', async () => {
    await enableCache(h, null);
    for (let i = 0; i < 2; i++) {
      const res = await h.post({ model: SMALL, input: 'default off' });
      expect(res.status).toBe(200);
      expect(res.headers['x-switchyard-cache']).toBeUndefined();
      expect(res.body.usage).toEqual({ prompt_tokens: 11, total_tokens: 11, cost: usd(11), is_byok: false });
    }
    await enableCache(h, false);
    await h.post({ model: SMALL, input: 'default off' }).expect(200);
    expect(openaiInputs(h)).toHaveLength(3);
  });

  test('a batch with some inputs cached sends only the misses upstream and answers all in input order', async () => {
    const first = await send({ model: SMALL, input: ['aa', 'bbbb'] });
    expect(first.headers['x-switchyard-cache']).toBe('MISS');
    expect(first.body.usage).toEqual({
      prompt_tokens: 6,
      total_tokens: 6,
      cost: usd(6),
      is_byok: false,
      prompt_tokens_details: { cached_tokens: 0 },
    });
    const input = ['x', 'bbbb', 'yyy', 'aa', 'bbbb'];
    const res = await send({ model: SMALL, input });
    expect(res.status).toBe(200);
    expect(res.headers['x-switchyard-cache']).toBe('PARTIAL');
    expect(openaiInputs(h)).toEqual([
      ['aa', 'bbbb'],
      ['x', 'yyy'],
    ]);
    expect(res.body.data.map((d: { index: number; embedding: number[] }) => [d.index, d.embedding])).toEqual(
      input.map((t, i) => [i, fakeVector(t.length)]),
    );
    // The upstream billed 1 + 3 tokens; the cached ones (4 + 2 + 4) are counted apart.
    expect(res.body.usage).toEqual({
      prompt_tokens: 14,
      total_tokens: 14,
      cost: usd(4),
      is_byok: false,
      prompt_tokens_details: { cached_tokens: 10 },
    });
    const all = await send({ model: SMALL, input });
    expect(all.headers['x-switchyard-cache']).toBe('HIT');
    expect(openaiInputs(h)).toHaveLength(2);
    expect(all.body).toMatchObject({ object: 'list', model: SMALL, provider: 'OpenAI' });
    expect(all.body.usage).toEqual({
      prompt_tokens: 14,
      total_tokens: 14,
      cost: 0,
      is_byok: false,
      prompt_tokens_details: { cached_tokens: 14 },
      cached: true,
    });
    expect(rawEmbeddings(all.text)).toEqual(rawEmbeddings(res.text));
  });

  test('float hits are byte-identical to the upstream first answer; base64 hits to the uncached base64 path', async () => {
    const first = await send({ model: MISTRAL, input: ['odd', 'digits'] });
    expect(first.status).toBe(200);
    expect(rawEmbeddings(first.text)[0]).toBe('[0.10000000000000001, -1.5E-7,3.0,0.333333333333333314829616256247]');
    const hit = await send({ model: MISTRAL, input: ['digits', 'odd'] });
    expect(hit.headers['x-switchyard-cache']).toBe('HIT');
    expect(rawEmbeddings(hit.text)).toEqual(rawEmbeddings(first.text).reverse());
    const b64 = await send({ model: MISTRAL, input: ['odd', 'digits'], encoding_format: 'base64' });
    expect(b64.headers['x-switchyard-cache']).toBe('HIT');
    const uncached = await send(
      { model: MISTRAL, input: ['odd', 'digits'], encoding_format: 'base64' },
      { 'Cache-Control': 'no-cache, no-store' },
    );
    expect(uncached.headers['x-switchyard-cache']).toBe('MISS');
    expect(rawEmbeddings(b64.text)).toEqual(rawEmbeddings(uncached.text));
    expect(fromBase64Float32(b64.body.data[1].embedding)).toEqual([0.1, -1.5e-7, 6, 1 / 3].map(Math.fround));
    expect(odd.calls).toEqual([
      ['odd', 'digits'],
      ['odd', 'digits'],
    ]);
  });

  test('base64 passed through from the upstream is cached as its bytes; a float request for it goes upstream once', async () => {
    const first = await send({ model: SMALL, input: 'passthrough', encoding_format: 'base64' });
    expect(h.fleet.fakes.openai!.calls[0]!.body.encoding_format).toBe('base64');
    const again = await send({ model: SMALL, input: 'passthrough', encoding_format: 'base64' });
    expect(again.headers['x-switchyard-cache']).toBe('HIT');
    expect(rawEmbeddings(again.text)).toEqual(rawEmbeddings(first.text));
    // The entry has no float text (the upstream never printed one): a float request is a miss and fills it in.
    expect((await send({ model: SMALL, input: 'passthrough' })).headers['x-switchyard-cache']).toBe('MISS');
    const float = await send({ model: SMALL, input: 'passthrough' });
    expect(float.headers['x-switchyard-cache']).toBe('HIT');
    expect(float.body.data[0].embedding).toEqual(fakeVector(11));
    expect(openaiInputs(h)).toHaveLength(2);
  });

  test('multimodal items and token ids are cached per item too', async () => {
    const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } };
    const input = [
      { content: [{ type: 'text', text: 'a cat' }, image] },
      { content: [{ type: 'text', text: 'a dog' }] },
    ];
    const first = await send({ model: 'cohere/embed-v4.0', input });
    expect([first.status, first.headers['x-switchyard-cache']]).toEqual([200, 'MISS']);
    const again = await send({ model: 'cohere/embed-v4.0', input: [input[1], input[0]] });
    expect([again.headers['x-switchyard-cache'], again.body.usage.cost, again.body.usage.cached]).toEqual([
      'HIT',
      0,
      true,
    ]);
    expect(again.body.usage.prompt_tokens_details.cached_tokens).toBe(first.body.usage.prompt_tokens);
    expect(again.body.data.map((d: { embedding: number[] }) => d.embedding)).toEqual([
      first.body.data[1].embedding,
      first.body.data[0].embedding,
    ]);
    expect(h.fleet.fakes.cohere!.calls).toHaveLength(1);
    expect(
      (
        await send({
          model: SMALL,
          input: [
            [1, 2, 3],
            [4, 5],
          ],
        })
      ).status,
    ).toBe(200);
    const tokens = await send({ model: SMALL, input: [[4, 5], [6]] });
    expect([tokens.headers['x-switchyard-cache'], openaiInputs(h)]).toEqual([
      'PARTIAL',
      [
        [
          [1, 2, 3],
          [4, 5],
        ],
        [[6]],
      ],
    ]);
  });

  test('dimensions and input_type are part of the key', async () => {
    expect((await send({ model: SMALL, input: 'dims' })).status).toBe(200);
    const four = await send({ model: SMALL, input: 'dims', dimensions: 4 });
    expect([four.headers['x-switchyard-cache'], four.body.data[0].embedding]).toEqual(['MISS', fakeVector(4, 4)]);
    expect((await send({ model: SMALL, input: 'dims', dimensions: 4 })).headers['x-switchyard-cache']).toBe('HIT');
    expect((await send({ model: SMALL, input: 'dims' })).headers['x-switchyard-cache']).toBe('HIT');
    const gemini = 'google/gemini-embedding-001';
    expect((await send({ model: gemini, input: 'q', input_type: 'search_query' })).headers['x-switchyard-cache']).toBe(
      'MISS',
    );
    expect(
      (await send({ model: gemini, input: 'q', input_type: 'search_document' })).headers['x-switchyard-cache'],
    ).toBe('MISS');
    expect((await send({ model: gemini, input: 'q', input_type: 'search_query' })).headers['x-switchyard-cache']).toBe(
      'HIT',
    );
    expect(h.fleet.fakes['google-ai-studio']!.calls).toHaveLength(2);
  });

  test('tenant isolation: the same text in another organization is a miss (and paid for)', async () => {
    await h.post({ model: SMALL, input: 'shared secret text' }).expect(200);
    const other = await h.db.transaction((tx) => provisionOrg(tx, `Other ${uniqueId()}`));
    await request(h.gw.app)
      .patch(`/api/v1/workspaces/${other.workspace.id}`)
      .set('Authorization', bearer(other.secret))
      .send({ is_embeddings_cache_enabled: true })
      .expect(200);
    const { secret } = await createInferenceKey({ app: h.gw.app, mgmtKey: other.secret });
    const res = await request(h.gw.app)
      .post('/api/v1/embeddings')
      .set('Authorization', bearer(secret))
      .send({ model: SMALL, input: 'shared secret text' });
    expect([res.headers['x-switchyard-cache'], res.body.usage.cost]).toEqual(['MISS', usd(18)]);
    expect(openaiInputs(h)).toHaveLength(2);
    // Each organization now has its own entry.
    expect((await h.post({ model: SMALL, input: 'shared secret text' })).headers['x-switchyard-cache']).toBe('HIT');
  });

  test('cache:false and Cache-Control: no-cache skip the read; no-store skips the write', async () => {
    await h.post({ model: SMALL, input: 'directive' }, { 'Cache-Control': 'no-store' }).expect(200);
    expect((await h.post({ model: SMALL, input: 'directive' })).headers['x-switchyard-cache']).toBe('MISS');
    expect((await h.post({ model: SMALL, input: 'directive', cache: false })).headers['x-switchyard-cache']).toBe(
      'MISS',
    );
    expect(
      (await h.post({ model: SMALL, input: 'directive' }, { 'Cache-Control': 'max-age=0, No-Cache' })).headers[
        'x-switchyard-cache'
      ],
    ).toBe('MISS');
    expect((await h.post({ model: SMALL, input: 'directive' })).headers['x-switchyard-cache']).toBe('HIT');
    expect(openaiInputs(h)).toHaveLength(4);
    const bad = await h.post({ model: SMALL, input: 'directive', cache: 'no' });
    expect([bad.status, bad.body.error.message]).toEqual([400, 'Invalid request parameters']);
  });

  test('entries expire after the TTL (7 days by default, on the gateway clock)', async () => {
    await h.post({ model: SMALL, input: 'ttl' }).expect(200);
    h.clock.now += WEEK - 1000;
    expect((await h.post({ model: SMALL, input: 'ttl' })).headers['x-switchyard-cache']).toBe('HIT');
    h.clock.now += 2000;
    expect((await h.post({ model: SMALL, input: 'ttl' })).headers['x-switchyard-cache']).toBe('MISS');
    expect(openaiInputs(h)).toHaveLength(2);
  });

  test("an entry is used only when the request's provider preferences allow the provider that produced it", async () => {
    const bge = 'baai/bge-m3';
    const first = await h.post({
      model: bge,
      input: 'routed',
      provider: { order: ['nebius'], allow_fallbacks: false },
    });
    expect([first.body.provider, first.headers['x-switchyard-cache']]).toEqual(['Nebius AI Studio', 'MISS']);
    const ignored = await h.post({ model: bge, input: 'routed', provider: { ignore: ['nebius'] } });
    expect([ignored.body.provider, ignored.headers['x-switchyard-cache']]).toEqual(['DeepInfra', 'MISS']);
    // The entry is now DeepInfra's: any request that allows DeepInfra uses it.
    const hit = await h.post({ model: bge, input: 'routed' });
    expect([hit.body.provider, hit.headers['x-switchyard-cache']]).toEqual(['DeepInfra', 'HIT']);
    expect(
      (await h.post({ model: bge, input: 'routed', provider: { only: ['nebius'] } })).headers['x-switchyard-cache'],
    ).toBe('MISS');
  });

  test('a corrupt entry is a miss and is replaced', async () => {
    const [key] = inputKeys(
      { tenant: `o:${h.gw.orgId}`, model: SMALL, dimensions: undefined, inputType: undefined },
      { kind: 'text', texts: ['corrupt'] },
    );
    await h.post({ model: SMALL, input: 'corrupt' }).expect(200);
    // Each answer's write has ended before the test puts its own bytes in the store.
    const written = () => h.gw.deps.embeddingsCache.settled();
    await written();
    const store = h.gw.deps.embeddingsCache.store;
    const [good] = await store.getMany([key as string]);
    // A flipped byte is caught by the checksum, which only entries from Redis are checked against
    // (the in-process store hands back the very bytes written in this process).
    if (!store.inProcess) {
      const damaged = Buffer.from(good as Buffer);
      damaged.writeUInt8((damaged.readUInt8(damaged.length - 10) ^ 0xff) & 0xff, damaged.length - 10);
      await store.set(key as string, damaged, WEEK);
      const res = await h.post({ model: SMALL, input: 'corrupt' });
      expect([res.status, res.headers['x-switchyard-cache'], res.body.data[0].embedding]).toEqual([
        200,
        'MISS',
        fakeVector(7),
      ]);
      await written();
    }
    await store.set(key as string, (good as Buffer).subarray(0, 40), WEEK);
    const cut = await h.post({ model: SMALL, input: 'corrupt' });
    expect([cut.status, cut.headers['x-switchyard-cache'], cut.body.data[0].embedding]).toEqual([
      200,
      'MISS',
      fakeVector(7),
    ]);
    await written();
    await store.set(key as string, Buffer.from('not an entry'), WEEK);
    expect((await h.post({ model: SMALL, input: 'corrupt' })).headers['x-switchyard-cache']).toBe('MISS');
    await written();
    expect((await h.post({ model: SMALL, input: 'corrupt' })).headers['x-switchyard-cache']).toBe('HIT');
    expect(
      await h.gw.deps.metrics.registry.getSingleMetricAsString('switchyard_embeddings_cache_corrupt_total'),
    ).toMatch(/ [1-9]\d*$/m);
  });

  test('budgets reserve only for the misses, and nothing for a fully cached request', async () => {
    await h.post({ model: SMALL, input: ['budget-a', 'budget-b'] }).expect(200);
    const calls: Array<[string, number]> = [];
    const spy: SpendGuard = {
      reserve(_key, estimate) {
        calls.push(['reserve', estimate]);
        return Promise.resolve({
          settle: (usd) => Promise.resolve(void calls.push(['settle', usd])),
          release: () => Promise.resolve(void calls.push(['release', 0])),
        });
      },
    };
    spend.use(spy);
    try {
      await h.post({ model: SMALL, input: ['budget-a', 'budget-c', 'budget-b'] }).expect(200);
      // The estimate bounds "budget-c" alone: 8 UTF-8 bytes + 4 marker tokens.
      expect(calls).toEqual([
        ['reserve', usd(12)],
        ['settle', usd(8)],
      ]);
      calls.length = 0;
      await h.post({ model: SMALL, input: ['budget-c', 'budget-b'] }).expect(200);
      expect(calls).toEqual([
        ['reserve', 0],
        ['settle', 0],
      ]);
    } finally {
      spend.use(undefined);
    }
  });

  test('the usage record and /generation keep the cached tokens apart from what the upstream billed', async () => {
    await h.post({ model: SMALL, input: ['usage-1'] }).expect(200);
    const partial = await h.post({ model: SMALL, input: ['usage-1', 'usage-22'] });
    const full = await h.post({ model: SMALL, input: ['usage-22', 'usage-1'] });
    expect(h.events.map((e) => [e.tokensPrompt, e.cachedTokens, e.costUsd, e.upstreamCostUsd, e.provider])).toEqual([
      [7, 0, usd(7), usd(7), 'OpenAI'],
      [15, 7, usd(8), usd(8), 'OpenAI'],
      [15, 15, 0, 0, 'OpenAI'],
    ]);
    expect(h.events[2]).toMatchObject({
      id: full.body.id,
      attempts: 0,
      generationTimeMs: 0,
      upstreamId: null,
      status: 'ok',
    });
    await h.gw.deps.recorder.flush();
    const gen = await request(h.gw.app)
      .get(`/api/v1/generation?id=${full.body.id}`)
      .set('Authorization', bearer(h.key));
    expect(gen.status).toBe(200);
    expect(gen.body.data).toMatchObject({
      id: full.body.id,
      tokens_prompt: 15,
      total_cost: 0,
      usage: 0,
      provider_name: 'OpenAI',
      native_tokens_cached: 15,
    });
    expect(gen.body.data.cache_discount).toBeCloseTo(usd(15), 15);
    // Analytics has a source for what the cache did: responses answered whole, and the money saved.
    const at = Date.parse(gen.body.data.created_at as string);
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const analytics = await request(h.gw.app)
      .post('/api/v1/analytics/query')
      .set('Authorization', bearer(h.gw.mgmtKey))
      .send({
        metrics: ['response_cached_count', 'usage_cache', 'cached_tokens'],
        time_range: { start: iso(at - 3_600_000), end: iso(at + 3_600_000) },
        filters: [{ field: 'generation_id', operator: 'in', value: [partial.body.id, full.body.id] }],
      });
    expect(analytics.status).toBe(200);
    const [row] = analytics.body.data.data as Array<Record<string, number>>;
    expect(row).toMatchObject({ response_cached_count: 1, cached_tokens: 22 });
    expect(row!.usage_cache).toBeCloseTo(usd(22), 15);
    const rows = await h.db.query<{ id: string; cached_tokens: number; cost_usd: number }>(
      'SELECT id, cached_tokens::float8 AS cached_tokens, cost_usd FROM generations WHERE id = ANY($1::text[]) ORDER BY cached_tokens',
      [[partial.body.id, full.body.id]],
    );
    expect(rows.map((r) => [r.id, r.cached_tokens, Number(r.cost_usd)])).toEqual([
      [partial.body.id, 7, usd(8)],
      [full.body.id, 15, 0],
    ]);
  });

  test('Prometheus counts hits, misses, writes and bytes', async () => {
    await h.post({ model: SMALL, input: ['m-1', 'm-2'] }).expect(200);
    await h.post({ model: SMALL, input: ['m-1', 'm-3'] }).expect(200);
    const text = await h.gw.deps.metrics.registry.metrics();
    expect(text).toMatch(/switchyard_embeddings_cache_lookups_total\{result="hit"\} [1-9]/);
    expect(text).toMatch(/switchyard_embeddings_cache_lookups_total\{result="miss"\} [1-9]/);
    expect(text).toMatch(/switchyard_embeddings_cache_writes_total\{outcome="stored"\} [1-9]/);
    expect(text).toMatch(/switchyard_embeddings_cache_written_bytes_total [1-9]/);
    if (kvKind.name === 'memory') expect(text).toMatch(/switchyard_embeddings_cache_bytes [1-9]/);
    // m-1 (3 tokens) was answered from the cache at $0.02/M.
    expect(text).toMatch(new RegExp(`switchyard_embeddings_cache_saved_tokens_total\\{model="${SMALL}"\\} [1-9]`));
    const saved = new RegExp(`switchyard_embeddings_cache_saved_usd_total\\{model="${SMALL}"\\} (\\S+)`).exec(
      text,
    )?.[1];
    expect(Number(saved)).toBeGreaterThanOrEqual(usd(3));
  });

  test('a store that does not answer is skipped after the bounded wait; the request goes upstream and writes nothing', async () => {
    const set = jest.fn(() => new Promise<void>(() => undefined));
    const hanging: CacheStore = { kind: 'memory', inProcess: true, getMany: () => new Promise(() => undefined), set };
    const original = cache.real;
    cache.use(new EmbeddingsCache(hanging, original.settings, h.gw.deps));
    try {
      await h.post({ model: SMALL, input: 'stalled' }).expect(200);
      const res = await h.post({ model: SMALL, input: 'stalled' });
      expect([res.status, res.headers['x-switchyard-cache'], res.body.data[0].embedding]).toEqual([
        200,
        'MISS',
        fakeVector(7),
      ]);
      expect(openaiInputs(h)).toHaveLength(2);
      expect(
        await h.gw.deps.metrics.registry.getSingleMetricAsString('switchyard_embeddings_cache_lookups_total'),
      ).toMatch(/result="skipped"\} [1-9]/);
      // A store that could not answer is not handed the answers' writes either.
      expect(set).not.toHaveBeenCalled();
    } finally {
      cache.use(undefined);
    }
  });
});

describeIf(REDIS_URL)('embeddings cache while Redis goes down mid-run', () => {
  test('requests keep succeeding from the upstream, and hit again once Redis is back', async () => {
    const target = new URL(REDIS_URL as string);
    const proxy = await tcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.open();
    const kv = await RedisKv.connect({
      url: `redis://127.0.0.1:${proxy.port}`,
      prefix: `t:${uniqueId()}:`,
      commandTimeoutMs: 1000,
    });
    const h = await startGatewayHarness({ kv });
    try {
      await enableCache(h);
      await h.post({ model: SMALL, input: 'before' }).expect(200);
      expect((await h.post({ model: SMALL, input: 'before' })).headers['x-switchyard-cache']).toBe('HIT');
      await proxy.close();
      for (const input of ['before', 'during']) {
        const res = await h.post({ model: SMALL, input });
        expect([res.status, res.headers['x-switchyard-cache'], res.body.data[0].embedding]).toEqual([
          200,
          'MISS',
          fakeVector(input.length),
        ]);
      }
      expect(openaiInputs(h)).toHaveLength(3);
      await proxy.open();
      await eventually(() => expect(kv.ping()).resolves.toBeUndefined(), { timeoutMs: 10_000 });
      expect((await h.post({ model: SMALL, input: 'before' })).headers['x-switchyard-cache']).toBe('HIT');
    } finally {
      await h.close();
      await proxy.close();
    }
  });
});

describe('embeddings cache with the gateway default on (embeddingsCache.enabled)', () => {
  test('workspaces that set nothing use it; one switched off does not', async () => {
    const h = await startGatewayHarness({ overrides: { embeddingsCache: { enabled: true } } });
    try {
      await h.post({ model: SMALL, input: 'config default' }).expect(200);
      expect((await h.post({ model: SMALL, input: 'config default' })).headers['x-switchyard-cache']).toBe('HIT');
      await enableCache(h, false);
      const off = await h.post({ model: SMALL, input: 'config default' });
      expect([off.status, off.headers['x-switchyard-cache']]).toEqual([200, undefined]);
      expect(openaiInputs(h)).toHaveLength(2);
      const bad = await request(h.gw.app)
        .patch(`/api/v1/workspaces/${h.gw.defaultWorkspaceId}`)
        .set('Authorization', bearer(h.gw.mgmtKey))
        .send({ is_embeddings_cache_enabled: 'yes' });
      expect([bad.status, bad.body.error.message]).toEqual([400, 'Invalid request parameters']);
    } finally {
      await h.close();
    }
  });
});
