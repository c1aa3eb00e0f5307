/**
 * POST /embeddings and GET /embeddings/models through HTTP against fake upstreams: every input
 * shape, both encodings, the response and model-list shapes, paging, validation, auth, unknown
 * vs non-embeddings models, usage records and spend reservation.
 */
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { bearer } from '../helpers/gateway';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { fakeVector } from '../fakes/wires';
import { expectSchema } from '../helpers/expect-schema';
import { fromBase64Float32 } from '../../src/embeddings/encode';
import { createLogger, type Logger } from '../../src/observability/logger';
import type { SpendGuard } from '../../src/budgets/types';
import type { UsageRecorder } from '../../src/usage/types';
import { PaymentRequiredError } from '../../src/errors';
import { switchable } from '../helpers/switchable';

const SMALL = 'openai/text-embedding-3-small';
const MODEL_FIELDS = [
  'id',
  'canonical_slug',
  'hugging_face_id',
  'name',
  'created',
  'description',
  'context_length',
  'architecture',
  'pricing',
  'top_provider',
  'per_request_limits',
  'supported_parameters',
  'default_parameters',
  'supported_voices',
  'knowledge_cutoff',
  'expiration_date',
  'links',
];

let h: GatewayHarness;
/** The parts a test below replaces for a while: the gateway is built over these stand-ins. */
const spend = switchable<SpendGuard>();
const records = switchable<UsageRecorder>();
const logs = switchable<Logger>();
beforeAll(async () => {
  h = await startGatewayHarness({
    logger: logs.wrap(createLogger('silent')),
    wrap: { spend: spend.wrap, recorder: records.wrap },
  });
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.fleet.resetAll();
  h.events.length = 0;
});

describe('POST /embeddings', () => {
  test('string input → the spec response shape, float by default', async () => {
    const res = await h.post({ model: SMALL, input: 'hello world' });
    expect(res.status).toBe(200);
    expectSchema(res.body, 'embeddings.create.response');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^gen-emb-\d{10}-[A-Za-z0-9]{20}$/),
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: fakeVector(11) }],
      model: SMALL,
      provider: 'OpenAI',
      usage: { prompt_tokens: 11, total_tokens: 11, cost: 11 * 0.00000002, is_byok: false },
    });
    const call = h.fleet.fakes.openai!.calls[0]!;
    expect(call.path).toBe('/v1/embeddings');
    expect(call.headers.authorization).toBe('Bearer test-key-openai');
    expect(call.body).toEqual({ model: 'text-embedding-3-small', input: ['hello world'], encoding_format: 'float' });
  });

  test('the path variants Express also matches answer as the hot route does', async () => {
    // POST /api/v1/embeddings runs outside Express's router (hot-route.ts); these go through it.
    for (const path of ['/api/v1/embeddings', '/api/v1/embeddings/', '/API/v1/Embeddings', '/api/v1/embeddings?x=1']) {
      const ok = await request(h.gw.app)
        .post(path)
        .set('Authorization', bearer(h.key))
        .send({ model: SMALL, input: 'hello world' });
      expect([path, ok.status, ok.body.data?.[0]?.embedding]).toEqual([path, 200, fakeVector(11)]);
      expect(ok.headers['x-request-id']).toBeDefined();
      const anonymous = await request(h.gw.app).post(path).send({ model: SMALL, input: 'x' });
      expect([path, anonymous.status, anonymous.body]).toEqual([
        path,
        401,
        { error: { code: 401, message: 'Missing Authentication header' } },
      ]);
      const invalid = await request(h.gw.app).post(path).set('Authorization', bearer(h.key)).send({ model: SMALL });
      expect([path, invalid.status, invalid.body.error.code]).toEqual([path, 400, 400]);
    }
  });

  test('string[] input → one embedding per item, in order', async () => {
    const res = await h.post({ model: SMALL, input: ['a', 'bbb', 'cc'] });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { index: number; embedding: number[] }) => [d.index, d.embedding[0]])).toEqual([
      [0, 1 / 8],
      [1, 3 / 8],
      [2, 2 / 8],
    ]);
    expect(res.body.usage.prompt_tokens).toBe(6);
  });

  test('token array and array of token arrays go to token-capable endpoints', async () => {
    const one = await h.post({ model: SMALL, input: [1, 2, 3, 4] });
    expect(one.status).toBe(200);
    expect(one.body.data).toHaveLength(1);
    expect(h.fleet.fakes.openai!.calls[0]!.body.input).toEqual([[1, 2, 3, 4]]);
    const many = await h.post({
      model: SMALL,
      input: [
        [1, 2],
        [3, 4, 5],
      ],
    });
    expect(many.status).toBe(200);
    expect(many.body.data.map((d: { embedding: number[] }) => d.embedding[0])).toEqual([2 / 8, 3 / 8]);
    // bge-m3: only deepinfra accepts token ids, although nebius is listed first for text
    const bge = await h.post({ model: 'baai/bge-m3', input: [[7, 8, 9]], provider: { order: ['nebius'] } });
    expect(bge.status).toBe(200);
    expect(bge.body.provider).toBe('DeepInfra');
    expect(h.fleet.fakes.nebius!.calls).toHaveLength(0);
  });

  test('token ids on a model without token-capable endpoints → 404 no_endpoints (can never succeed)', async () => {
    const res = await h.post({ model: 'voyage/voyage-3.5', input: [1, 2, 3] });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      code: 404,
      message: 'Resource not found',
      availability: { code: 'no_endpoints', retryable: false },
    });
  });

  test('multimodal input is routed only to endpoints that accept its modalities', async () => {
    const input = [
      {
        content: [
          { type: 'text', text: 'a cat' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ];
    const res = await h.post({ model: 'cohere/embed-v4.0', input });
    expect(res.status).toBe(200);
    expectSchema(res.body, 'embeddings.create.response');
    expect(res.body.provider).toBe('Cohere');
    expect(h.fleet.fakes.cohere!.calls[0]!.body).toMatchObject({
      model: 'embed-v4.0',
      inputs: [{ content: input[0]!.content }],
      embedding_types: ['float'],
    });
    // 5 text tokens at $0.12/M + 1 image at $0.00047
    expect(res.body.usage.cost).toBeCloseTo(5 * 0.00000012 + 0.00047, 12);
    expect(h.events[0]!.inputModality).toBe('text+image');
    // a text-only model cannot take the image
    const refused = await h.post({ model: SMALL, input });
    expect(refused.status).toBe(404);
    expect(h.fleet.fakes.openai!.calls).toHaveLength(0);
    // text-only multimodal items are fine on a text model
    const textOnly = await h.post({
      model: 'voyage/voyage-3.5',
      input: [{ content: [{ type: 'text', text: 'abc' }] }],
    });
    expect(textOnly.status).toBe(200);
    expect(h.fleet.fakes.voyage!.calls[0]!.body.input).toEqual(['abc']);
  });

  test('encoding_format base64 → little-endian float32 bytes (computed locally)', async () => {
    const res = await h.post({ model: 'mistralai/mistral-embed', input: ['abcd', 'xy'], encoding_format: 'base64' });
    expect(res.status).toBe(200);
    expectSchema(res.body, 'embeddings.create.response');
    expect(h.fleet.fakes.mistral!.calls[0]!.body.encoding_format).toBe('float');
    expect(typeof res.body.data[0].embedding).toBe('string');
    expect(fromBase64Float32(res.body.data[0].embedding)).toEqual(fakeVector(4));
    expect(fromBase64Float32(res.body.data[1].embedding)).toEqual(fakeVector(2));
    const raw = Buffer.from(res.body.data[0].embedding, 'base64');
    expect(raw.readFloatLE(0)).toBe(0.5);
  });

  test('base64 from an upstream that can produce it is passed through', async () => {
    const res = await h.post({ model: SMALL, input: 'abcdefgh', encoding_format: 'base64' });
    expect(res.status).toBe(200);
    expect(h.fleet.fakes.openai!.calls[0]!.body.encoding_format).toBe('base64');
    expect(fromBase64Float32(res.body.data[0].embedding)).toEqual(fakeVector(8));
  });

  test('dimensions, input_type and user reach the upstream in its own terms', async () => {
    expect(
      (await h.post({ model: SMALL, input: 'x', dimensions: 4, user: 'u-1' })).body.data[0].embedding,
    ).toHaveLength(4);
    expect(h.fleet.fakes.openai!.calls[0]!.body).toMatchObject({ dimensions: 4, user: 'u-1' });
    await h.post({ model: 'google/gemini-embedding-001', input: ['q'], dimensions: 3, input_type: 'search_query' });
    expect(h.fleet.fakes['google-ai-studio']!.calls[0]!).toMatchObject({
      path: '/v1beta/models/gemini-embedding-001:batchEmbedContents',
      body: {
        requests: [
          {
            model: 'models/gemini-embedding-001',
            content: { parts: [{ text: 'q' }] },
            taskType: 'RETRIEVAL_QUERY',
            outputDimensionality: 3,
          },
        ],
      },
    });
    expect(h.fleet.fakes['google-ai-studio']!.calls[0]!.headers['x-goog-api-key']).toBe('test-key-google-ai-studio');
    await h.post({ model: 'voyage/voyage-3.5', input: 'd', input_type: 'search_document', dimensions: 2 });
    expect(h.fleet.fakes.voyage!.calls[0]!.body).toEqual({
      model: 'voyage-3.5',
      input: ['d'],
      input_type: 'document',
      output_dimension: 2,
    });
    await h.post({ model: 'cohere/embed-v4.0', input: 'd', input_type: 'search_query' });
    expect(h.fleet.fakes.cohere!.calls[0]!.body).toMatchObject({ texts: ['d'], input_type: 'search_query' });
  });

  test('upstream without usage → tokens counted with the tokenizer, never a silent 0 cost', async () => {
    const res = await h.post({ model: 'google/gemini-embedding-001', input: 'hello world' });
    expect(res.status).toBe(200);
    expect(res.body.usage.prompt_tokens).toBe(2);
    expect(res.body.usage.cost).toBeCloseTo(2 * 0.00000015, 15);
    h.fleet.fakes.openai!.reportUsage = false;
    const open = await h.post({ model: SMALL, input: 'hello world' });
    expect(open.body.usage.prompt_tokens).toBe(2);
    expect(open.body.usage.cost).toBeGreaterThan(0);
  });

  test('a usage event is recorded with the call facts; session_id in the body wins over x-session-id', async () => {
    await h.post(
      { model: SMALL, input: 'abc', user: 'end-user-7', session_id: 'body-session' },
      { 'x-session-id': 'header-session', 'User-Agent': 'ua/1' },
    );
    await h.post({ model: SMALL, input: 'abc' }, { 'x-session-id': 'header-session' });
    expect(h.events).toHaveLength(2);
    expect(h.events[0]).toMatchObject({
      id: expect.stringMatching(/^gen-emb-/),
      orgId: h.gw.orgId,
      workspaceId: h.gw.defaultWorkspaceId,
      apiType: 'embeddings',
      model: SMALL,
      provider: 'OpenAI',
      tokensPrompt: 3,
      costUsd: 6e-8, // 3 tokens × $0.00000002, exact (not the float product 6.000000000000001e-8)
      attempts: 1,
      status: 'ok',
      inputModality: 'text',
      endUser: 'end-user-7',
      sessionId: 'body-session',
      userAgent: 'ua/1',
      upstreamId: 'up-openai-1',
    });
    expect(h.events[1]!.sessionId).toBe('header-session');
  });

  test('a recorder that rejects or throws leaves the answer intact and is logged with the ids, message and stack', async () => {
    const recorder = records.real;
    // A real logger writing JSON lines to a stream, as in production.
    const stream = new PassThrough();
    let written = '';
    stream.on('data', (chunk: Buffer) => void (written += chunk.toString('utf8')));
    logs.use(createLogger('error', stream));
    try {
      for (const [fail, message] of [
        [async () => Promise.reject(new Error('outbox down')), 'outbox down'],
        [
          () => {
            throw new Error('recorder broken');
          },
          'recorder broken',
        ],
      ] as const) {
        written = '';
        records.use({ ...recorder, record: fail });
        const res = await h.post({ model: SMALL, input: 'hello world' }, { 'X-Request-Id': 'req-record-fails' });
        expect(res.status).toBe(200);
        expect(res.body.data[0].embedding).toEqual(fakeVector(11));
        await h.gw.deps.embeddings.drain();
        await new Promise((resolve) => setImmediate(resolve));
        const line = JSON.parse(written.trim()) as Record<string, unknown>;
        expect(line).toMatchObject({
          level: 'error',
          message: 'usage record failed',
          request_id: 'req-record-fails',
          generation_id: res.body.id,
          err: { name: 'Error', message },
        });
        expect((line.err as { stack: string }).stack).toContain(`Error: ${message}\n    at `);
      }
    } finally {
      records.use(undefined);
      logs.use(undefined);
    }
  });

  test('drain waits for every answered request to settle and record (a failing settle included), not longer', async () => {
    const settles: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
    spend.use({
      reserve: () =>
        Promise.resolve({
          settle: () => new Promise<void>((resolve, reject) => void settles.push({ resolve, reject })),
          release: () => Promise.resolve(),
        }),
    });
    try {
      for (let i = 0; i < 2; i++) expect((await h.post({ model: SMALL, input: `x${i}` })).status).toBe(200);
      expect(settles).toHaveLength(2);
      let drained = false;
      const drain = h.gw.deps.embeddings.drain().then(() => void (drained = true));
      settles[0]!.resolve();
      // One event-loop turn: every continuation of the first settle (and of a drain it might
      // wrongly wake) has run by then; no I/O is involved.
      await new Promise((r) => setImmediate(r));
      expect(drained).toBe(false);
      settles[1]!.reject(new Error('settle failed'));
      await drain;
      expect(drained).toBe(true);
      await h.gw.deps.embeddings.drain(); // nothing left: resolves at once
    } finally {
      spend.use(undefined);
    }
  });

  test('spend is reserved before the call with an estimate and settled to the real cost', async () => {
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
      await h.post({ model: 'baai/bge-m3', input: 'abcdef' });
      // the reservation is an upper bound (6 UTF-8 bytes + 4 marker tokens) at the most
      // expensive eligible endpoint (together, $0.016/M), so it always covers the real cost
      expect(calls[0]![0]).toBe('reserve');
      expect(calls[0]![1]).toBeCloseTo(10 * 0.000000016, 15);
      expect(calls[1]).toEqual(['settle', 6e-8]); // 6 tokens × $0.00000001, exact
      h.fleet.fakes.deepinfra!.setSticky({ status: 500 });
      h.fleet.fakes.nebius!.setSticky({ status: 500 });
      h.fleet.fakes.together!.setSticky({ status: 500 });
      calls.length = 0;
      expect((await h.post({ model: 'baai/bge-m3', input: 'abcdef' })).status).toBe(502);
      expect(calls.map((c) => c[0])).toEqual(['reserve', 'release']);
      spend.use({ reserve: async () => Promise.reject(new PaymentRequiredError()) });
      const refused = await h.post({ model: SMALL, input: 'x' });
      expect(refused.status).toBe(402);
    } finally {
      spend.use(undefined);
    }
  });

  test('unknown model → 404; a known non-embeddings model → 400', async () => {
    const unknown = await h.post({ model: 'nobody/nothing', input: 'x' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({
      code: 404,
      message: 'Resource not found',
      metadata: { model: 'nobody/nothing', models_list: '/api/v1/embeddings/models' },
    });
    const chat = await h.post({ model: 'openai/gpt-4o', input: 'x' });
    expect(chat.status).toBe(400);
    expect(chat.body.error.code).toBe(400);
    expect(chat.body.error.metadata.errors[0].path).toBe('body.model');
  });

  test.each([
    [{ input: 'x' }],
    [{ model: SMALL }],
    [{ model: SMALL, input: '' }],
    [{ model: SMALL, input: [] }],
    [{ model: SMALL, input: ['ok', ''] }],
    [{ model: SMALL, input: [1.5] }],
    [{ model: SMALL, input: [{ content: [] }] }],
    [{ model: SMALL, input: [{ content: [{ type: 'text', text: '' }] }] }],
    [{ model: SMALL, input: [{ content: [{ type: 'audio', x: 1 }] }] }],
    [{ model: SMALL, input: 'x', dimensions: 0 }],
    [{ model: SMALL, input: 'x', encoding_format: 'int8' }],
    [{ model: SMALL, input: 'x', provider: { unknown_field: true } }],
    [{ model: SMALL, input: 'x', provider: { sort: 'cheapest' } }],
    [{ model: SMALL, input: 'x', provider: { max_price: { prompt: 'abc' } } }],
    [{ model: SMALL, input: 'x', provider: { quantizations: ['fp9'] } }],
    [{ model: SMALL, input: 'x', provider: { data_collection: 'maybe' } }],
  ])('invalid body %j → 400 with the spec message', async (body) => {
    const res = await h.post(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 400, message: 'Invalid request parameters' });
    expect(h.fleet.fakes.openai!.calls).toHaveLength(0);
  });

  test('accepted extras: trace, provider null, enforce_distillable_text', async () => {
    expect((await h.post({ model: SMALL, input: 'x', trace: { trace_id: 't1' }, provider: null })).status).toBe(200);
    expect((await h.post({ model: SMALL, input: 'x', provider: { enforce_distillable_text: true } })).status).toBe(200);
  });

  test.each([
    ['cohere/embed-v4.0', 'cohere', 96],
    ['google/gemini-embedding-001', 'google-ai-studio', 100],
  ])('%s: a batch over the %s limit of %i goes out in chunks, answered in input order', async (model, slug, max) => {
    const texts = Array.from({ length: 2 * max + 7 }, (_, i) => 'x'.repeat((i % 13) + 1));
    const res = await h.post({ model, input: texts });
    expect(res.status).toBe(200);
    const sizes = h.fleet.fakes[slug]!.calls.map(
      (c) => ((c.body.texts ?? c.body.inputs ?? c.body.requests) as unknown[]).length,
    );
    expect(sizes.sort((a, b) => b - a)).toEqual([max, max, 7]);
    expect(res.body.data.map((d: { index: number }) => d.index)).toEqual(texts.map((_, i) => i));
    expect(res.body.data.map((d: { embedding: number[] }) => d.embedding)).toEqual(
      texts.map((t) => fakeVector(t.length)),
    );
    // one failed chunk fails the attempt: no partial answer
    h.fleet.resetAll();
    h.fleet.fakes[slug]!.queue({ status: 200 }, { status: 500 });
    expect((await h.post({ model, input: texts })).status).not.toBe(200);
  });

  test('a large answer, arriving in many socket reads, is answered byte for byte in float and base64', async () => {
    // 40 vectors of 1,500 numbers: about 300 kB from the upstream, so vectors run across its reads.
    const texts = Array.from({ length: 40 }, (_, i) => 'y'.repeat(i + 1));
    const expected = texts.map((t) => fakeVector(t.length, 1500));
    const float = await h.post({ model: SMALL, input: texts, dimensions: 1500 });
    expect(float.status).toBe(200);
    expect(float.body.data.map((d: { embedding: number[] }) => d.embedding)).toEqual(expected);
    const b64 = await h.post({ model: SMALL, input: texts, dimensions: 1500, encoding_format: 'base64' });
    expect(b64.status).toBe(200);
    expect(b64.body.data.map((d: { embedding: string }) => fromBase64Float32(d.embedding))).toEqual(expected);
  });

  test('text-only multimodal input reaches an OpenAI-wire upstream as plain strings', async () => {
    const res = await h.post({
      model: SMALL,
      input: [
        {
          content: [
            { type: 'text', text: 'ab' },
            { type: 'text', text: 'cd' },
          ],
        },
        { content: [{ type: 'text', text: 'e' }] },
      ],
    });
    expect(res.status).toBe(200);
    expect(h.fleet.fakes.openai!.calls[0]!.body.input).toEqual(['ab\ncd', 'e']);
  });

  test('an upstream reporting 0 tokens for a non-empty input is recounted: never a silent 0 cost', async () => {
    h.fleet.fakes.openai!.queue({
      status: 200,
      body: {
        object: 'list',
        model: 'text-embedding-3-small',
        data: [{ object: 'embedding', index: 0, embedding: [0.5] }],
        usage: { prompt_tokens: 0, total_tokens: 0 },
      },
    });
    const res = await h.post({ model: SMALL, input: 'hello world' });
    expect(res.status).toBe(200);
    expect(res.body.usage.prompt_tokens).toBe(2);
    expect(res.body.usage.cost).toBeGreaterThan(0);
  });

  test.each([-5, 2.5, 1e300])(
    'an upstream reporting %s tokens is recounted, and the record says it was estimated',
    async (reported) => {
      h.events.length = 0;
      h.fleet.fakes.openai!.queue({
        status: 200,
        body: {
          object: 'list',
          model: 'text-embedding-3-small',
          data: [{ object: 'embedding', index: 0, embedding: [0.5] }],
          usage: { prompt_tokens: reported, total_tokens: reported },
        },
      });
      const res = await h.post({ model: SMALL, input: 'hello world' });
      expect(res.status).toBe(200);
      expect(res.body.usage).toMatchObject({ prompt_tokens: 2, cost: 2 * 0.00000002 });
      expect(h.events).toHaveLength(1);
      expect(h.events[0]).toMatchObject({ tokensPrompt: 2, costUsd: res.body.usage.cost, usageEstimated: true });
    },
  );

  test('a numeric "embedding" cannot pose as a lifted vector: duplicated vectors → 502', async () => {
    h.fleet.fakes.openai!.queue({
      status: 200,
      body: {
        object: 'list',
        data: [
          { embedding: [1, 2], index: 0 },
          { embedding: 0, index: 1 },
        ],
        usage: { prompt_tokens: 2, total_tokens: 2 },
      },
    });
    const res = await h.post({ model: SMALL, input: ['a', 'b'], provider: { allow_fallbacks: false } });
    expect(res.status).toBe(502);
  });

  test.each([
    ['objects', `{"model":"${SMALL}","input":"a","trace":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`],
    ['arrays', `{"model":"${SMALL}","input":"a","trace":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`],
  ])(
    'a body nested thousands of levels deep (%s) → 400, never 500 (a recursive walk would overflow the stack)',
    async (_kind, json) => {
      const res = await h.post(undefined).set('Content-Type', 'application/json').send(json);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400, message: 'Invalid request parameters' });
      expect(h.fleet.fakes.openai!.calls).toHaveLength(0);
    },
  );

  test('auth: no key → 401, management key → 403', async () => {
    expect((await request(h.gw.app).post('/api/v1/embeddings').send({ model: SMALL, input: 'x' })).status).toBe(401);
    const res = await request(h.gw.app)
      .post('/api/v1/embeddings')
      .set('Authorization', bearer(h.gw.mgmtKey))
      .send({ model: SMALL, input: 'x' });
    expect(res.status).toBe(403);
  });
});

describe('GET /embeddings/models', () => {
  const get = (q = '', key = h.key) =>
    request(h.gw.app).get(`/api/v1/embeddings/models${q}`).set('Authorization', bearer(key));

  test('full list with every field, per-token decimal prices and links', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expectSchema(res.body, 'embeddings.models.response');
    expect(res.body.total_count).toBe(8);
    expect(res.body.links).toEqual({ next: null });
    expect(res.body.data.map((m: { id: string }) => m.id)).toEqual([
      'openai/text-embedding-3-small',
      'openai/text-embedding-3-large',
      'mistralai/mistral-embed',
      'google/gemini-embedding-001',
      'cohere/embed-v4.0',
      'voyage/voyage-3.5',
      'qwen/qwen3-embedding-8b',
      'baai/bge-m3',
    ]);
    for (const m of res.body.data) {
      expect(Object.keys(m).sort()).toEqual([...MODEL_FIELDS].sort());
      expect(m.architecture.output_modalities).toEqual(['embeddings']);
      expect(m.links.details).toBe(`/api/v1/models/${m.id}/endpoints`);
      for (const v of Object.values(m.pricing)) expect(v).toMatch(/^\d+(\.\d+)?$/);
    }
    const small = res.body.data[0];
    expect(small).toMatchObject({
      canonical_slug: SMALL,
      context_length: 8192,
      created: 1706140800,
      pricing: { prompt: '0.00000002', completion: '0', request: '0', image: '0' },
      architecture: { input_modalities: ['text'], modality: 'text->embeddings', tokenizer: 'GPT', instruct_type: null },
      top_provider: { context_length: 8192, is_moderated: false, max_completion_tokens: null },
      supported_parameters: ['dimensions'],
      per_request_limits: null,
    });
    const cohere = res.body.data.find((m: { id: string }) => m.id === 'cohere/embed-v4.0');
    expect(cohere.architecture.input_modalities).toEqual(['text', 'image']);
    expect(cohere.pricing).toMatchObject({ prompt: '0.00000012', image: '0.00047' });
  });

  test('offset/limit paging with links.next; management keys may list too', async () => {
    const first = await get('?limit=3');
    expect(first.body.data).toHaveLength(3);
    expect(first.body.total_count).toBe(8);
    expect(first.body.links.next).toBe('/api/v1/embeddings/models?offset=3&limit=3');
    expectSchema(first.body, 'embeddings.models.response');
    const last = await get('?offset=6&limit=3');
    expect(last.body.data.map((m: { id: string }) => m.id)).toEqual(['qwen/qwen3-embedding-8b', 'baai/bge-m3']);
    expect(last.body.links.next).toBeNull();
    expect((await get('?offset=2')).body.data).toHaveLength(6);
    expect((await get('', h.gw.mgmtKey)).status).toBe(200);
  });

  test.each(['?limit=0', '?limit=1001', '?offset=-1', '?limit=abc'])('bad paging %s → 400', async (q) => {
    const res = await get(q);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(400);
  });
});
