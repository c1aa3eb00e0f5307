/**
 * Bad input never yields a 500, a stack trace or a crash: malformed JSON, oversize bodies,
 * unsupported encodings, unknown routes, and a sweep of hostile inputs over every route, each
 * answered with the `{error:{code,message}}` envelope whose code equals the status.
 */
import request from 'supertest';
import { openTestPglite, uniqueId } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import type { Database } from '../../src/store/db';
import { MemoryKv } from '../../src/kv/memory';

let db: Database;
let gw: TestGateway;
let apiKey: string;

beforeAll(async () => {
  db = await openTestPglite();
  gw = await createTestGateway(db, new MemoryKv(`t:${uniqueId()}:`), {
    server: { bodyLimitBytes: 2048, inferenceBodyLimitBytes: 2048 },
  });
  apiKey = (await createInferenceKey(gw)).secret;
});
afterAll(() => db.close());

function expectEnvelope(res: request.Response, status: number): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.error.code).toBe(status);
  expect(typeof res.body.error.message).toBe('string');
  expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(ts|js):\d+/);
}

test('malformed JSON → 400', async () => {
  const res = await request(gw.app)
    .post('/api/v1/keys')
    .set('Authorization', bearer(gw.mgmtKey))
    .set('Content-Type', 'application/json')
    .send('{"name": "x",');
  expectEnvelope(res, 400);
  expect(res.body.error.message).toBe('Invalid request parameters');
});

test('body over the configured limit → 413 with the limit in metadata', async () => {
  const res = await request(gw.app)
    .post('/api/v1/keys')
    .set('Authorization', bearer(gw.mgmtKey))
    .send({ name: 'x'.repeat(5000) });
  expectEnvelope(res, 413);
  expect(res.body.error).toEqual({ code: 413, message: 'Request payload too large', metadata: { limit_bytes: 2048 } });
});

test('unsupported charset → 415', async () => {
  const res = await request(gw.app)
    .post('/api/v1/keys')
    .set('Authorization', bearer(gw.mgmtKey))
    .set('Content-Type', 'application/json; charset=klingon')
    .send('{"name":"x"}');
  expectEnvelope(res, 415);
});

test('unknown routes → 404 envelope, inside and outside /api/v1', async () => {
  expectEnvelope(await request(gw.app).get('/api/v1/nothing-here').set('Authorization', bearer(apiKey)), 404);
  expectEnvelope(
    await request(gw.app).post('/api/v1/keys/extra/segments').set('Authorization', bearer(gw.mgmtKey)),
    404,
  );
  expectEnvelope(await request(gw.app).get('/favicon.ico'), 404);
  expectEnvelope(await request(gw.app).delete('/'), 404);
});

describe('an unknown route names what was asked for and what would serve it (issue 61 item 8)', () => {
  const notFound = (res: request.Response) => {
    expectEnvelope(res, 404);
    expect(res.body.error.message.startsWith('Resource not found: no route for ')).toBe(true);
    expect(res.body.error.metadata.reason).toBe(res.body.error.message.slice('Resource not found: '.length));
    return res.body.error;
  };

  test('the method and path, without the query', async () => {
    const error = notFound(
      await request(gw.app).get('/api/v1/nothing-here?key=sk-secret').set('Authorization', bearer(apiKey)),
    );
    expect(error).toEqual({
      code: 404,
      message: 'Resource not found: no route for GET /api/v1/nothing-here',
      metadata: { method: 'GET', path: '/api/v1/nothing-here', reason: 'no route for GET /api/v1/nothing-here' },
    });
    expect(JSON.stringify(error)).not.toContain('sk-secret');
  });

  test('another method on the path: the methods it answers', async () => {
    const error = notFound(await request(gw.app).get('/api/v1/chat/completions').set('Authorization', bearer(apiKey)));
    expect(error.message).toBe(
      'Resource not found: no route for GET /api/v1/chat/completions; /api/v1/chat/completions answers POST',
    );
    expect(error.metadata.allowed_methods).toEqual(['POST']);
    const keys = notFound(await request(gw.app).put('/api/v1/keys').set('Authorization', bearer(gw.mgmtKey)));
    expect(keys.metadata.allowed_methods).toEqual(expect.arrayContaining(['GET', 'POST']));
  });

  test.each([
    [
      'post',
      '/v1/messages',
      /Anthropic's Messages API is POST \/api\/v1\/messages: set ANTHROPIC_BASE_URL to the gateway's \/api \(http:\/\/<host>:<port>\/api\)$/,
    ],
    ['post', '/api/messages', /Anthropic's Messages API is POST \/api\/v1\/messages/],
    ['post', '/v1/responses', /the API is under \/api\/v1: POST \/api\/v1\/responses$/],
    [
      'get',
      '/api/v1/responses/resp_123',
      /stateless and keeps no responses: send the whole conversation to POST \/api\/v1\/responses$/,
    ],
    ['post', '/v1/chat/completions', /the API is under \/api\/v1: POST \/api\/v1\/chat\/completions$/],
    ['get', '/models', /the API is under \/api\/v1: GET \/api\/v1\/models$/],
    ['post', '/api/v1/completions', /forwarded by the passthrough, which is off: set PASSTHROUGH_BASE_URL/],
  ] as const)('%s %s says which door serves it', async (method, path, hint) => {
    const error = notFound(
      await request(gw.app)[method](path).set('Authorization', bearer(apiKey)).send({ model: 'x' }),
    );
    expect(error.message).toMatch(hint);
    expect(error.metadata).toMatchObject({ method: method.toUpperCase(), path });
  });

  test('a long path is echoed cut to 200 characters', async () => {
    const long = `/${'a'.repeat(5000)}`;
    const error = notFound(await request(gw.app).get(long));
    expect(error.metadata.path).toBe(`${long.slice(0, 200)}…`);
    expect(error.message.length).toBeLessThan(300);
  });
});

describe('a refused chat body lists the problems that explain it (issue 61 items 7 and 8)', () => {
  const chat = (body: Record<string, unknown>) =>
    request(gw.app)
      .post('/api/v1/chat/completions')
      .set('Authorization', bearer(apiKey))
      .send({ model: 'm', ...body });

  test('one wrong content part: one problem, where it is', async () => {
    const res = await chat({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image_url', image_url: { url: 'ftp://x/cat.png' } },
          ],
        },
      ],
    });
    expectEnvelope(res, 400);
    expect(res.body.error).toEqual({
      code: 400,
      message: 'Invalid request parameters',
      metadata: {
        errors: [
          { path: 'body.messages.0.content.1.image_url.url', message: 'must match pattern "^(https?://|data:)"' },
        ],
      },
    });
  });

  test('empty stop values are a 400 naming the value', async () => {
    for (const stop of ['', ['END', '']]) {
      const res = await chat({ messages: [{ role: 'user', content: 'hi' }], stop });
      expectEnvelope(res, 400);
      expect(res.body.error.metadata.errors).toEqual([
        { path: Array.isArray(stop) ? 'body.stop.1' : 'body.stop', message: 'must NOT have fewer than 1 characters' },
      ]);
    }
  });
});

test('X-Request-Id is echoed when sane and generated otherwise', async () => {
  const given = await request(gw.app).get('/healthz').set('X-Request-Id', 'abc-123');
  expect(given.headers['x-request-id']).toBe('abc-123');
  const generated = await request(gw.app).get('/healthz').set('X-Request-Id', 'bad id with spaces');
  expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
});

/** Send a raw JSON text (so escapes like a lone `\ud800` reach the parser as written). */
function sendRaw(method: 'post' | 'patch' | 'put', path: string, key: string, json: string) {
  return request(gw.app)
    [method](path)
    .set('Authorization', bearer(key))
    .set('Content-Type', 'application/json')
    .send(json);
}

test.each([
  ['a leap second', '2099-12-31T23:59:60Z'],
  ['a leap second with a zero offset', '2099-12-31T23:59:60+00:00'],
  ['an impossible day', '2099-02-30T00:00:00Z'],
])('expires_at with %s → 400 naming the field, never 500', async (_what, value) => {
  const res = await sendRaw('post', '/api/v1/keys', gw.mgmtKey, JSON.stringify({ name: 'leap', expires_at: value }));
  expectEnvelope(res, 400);
  expect(res.body.error.metadata.errors).toEqual(
    expect.arrayContaining([expect.objectContaining({ path: expect.stringMatching(/^body\.expires_at/) })]),
  );
});

test('every date-time the API accepts is a real instant', async () => {
  const res = await sendRaw(
    'post',
    '/api/v1/keys',
    gw.mgmtKey,
    JSON.stringify({ name: 'late', expires_at: '2099-12-31T23:59:59.999+00:00' }),
  );
  expect(res.status).toBe(201);
  expect(res.body.data.expires_at).toBe('2099-12-31T23:59:59.999Z');
  await request(gw.app)
    .delete(`/api/v1/keys/${res.body.data.hash}`)
    .set('Authorization', bearer(gw.mgmtKey))
    .expect(200);
});

test.each([
  [
    'POST /workspaces/:id/members/add',
    'post',
    '/api/v1/workspaces/default/members/add',
    '{"user_ids":["\\ud800"]}',
    'body.user_ids.0',
  ],
  [
    'POST /workspaces/:id/members/remove',
    'post',
    '/api/v1/workspaces/default/members/remove',
    '{"user_ids":["ok","x\\udfff"]}',
    'body.user_ids.1',
  ],
  [
    'POST /workspaces',
    'post',
    '/api/v1/workspaces',
    '{"name":"W","slug":"w-surrogate","disabled_server_tools":["a\\ud800"]}',
    'body.disabled_server_tools.0',
  ],
  [
    'PATCH /workspaces/:id',
    'patch',
    '/api/v1/workspaces/default',
    '{"disabled_server_tools":["a\\ud800"]}',
    'body.disabled_server_tools.0',
  ],
  ['POST /keys', 'post', '/api/v1/keys', '{"name":"\\udc00 key"}', 'body.name'],
  [
    'POST /embeddings (property name)',
    'post',
    '/api/v1/embeddings',
    '{"model":"no/such-model","input":"a","trace":{"\\ud800":1}}',
    'body.trace',
  ],
] as const)('a lone UTF-16 surrogate on %s → 400, never 500', async (route, method, path, json, where) => {
  const res = await sendRaw(method, path, route.includes('embeddings') ? apiKey : gw.mgmtKey, json);
  expectEnvelope(res, 400);
  expect(res.body.error.message).toBe('Invalid request parameters');
  expect(res.body.error.metadata.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: where })]));
});

test.each([
  // (this suite's body limit is 2 KiB; the deep bodies of the bug report get the same answer on any limit)
  [
    'arrays, 900 levels in trace',
    `{"model":"no/such-model","input":"a","trace":{"a":${'['.repeat(900)}${']'.repeat(900)}}}`,
  ],
  [
    '65 levels, one past the limit',
    `{"model":"no/such-model","input":"a","trace":${'{"a":'.repeat(64)}1${'}'.repeat(64)}}`,
  ],
])('deep nesting (%s) → 400 naming the limit, never 500', async (_what, json) => {
  const res = await sendRaw('post', '/api/v1/embeddings', apiKey, json);
  expectEnvelope(res, 400);
  expect(JSON.stringify(res.body.error.metadata.errors)).toContain('levels deep');
});

test('nesting within the limit is not refused for its depth', async () => {
  const json = `{"model":"no/such-model","input":"a","trace":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`;
  const res = await sendRaw('post', '/api/v1/embeddings', apiKey, json);
  expect(res.status).toBe(404); // validation passed; the model does not exist
});

test('a well-formed surrogate pair (an emoji) is fine', async () => {
  const res = await sendRaw('post', '/api/v1/keys', gw.mgmtKey, '{"name":"\\ud83d\\ude80 rocket"}');
  expect(res.status).toBe(201);
  expect(res.body.data.name).toBe('\u{1F680} rocket');
  await request(gw.app)
    .delete(`/api/v1/keys/${res.body.data.hash}`)
    .set('Authorization', bearer(gw.mgmtKey))
    .expect(200);
});

const HOSTILE_BODIES: unknown[] = [
  null,
  0,
  -1,
  1e308,
  true,
  'string',
  [],
  [null],
  {},
  { name: null },
  { name: {} },
  { name: ['a'] },
  { __proto__: { admin: true } },
  { constructor: { prototype: { x: 1 } } },
  { name: 'x'.repeat(300) },
  { name: 'ok', limit: 'NaN' },
  { name: 'ok', limit: Number.MAX_VALUE },
  { name: 'ok', expires_at: 'yesterday' },
  { name: 'ok', workspace_id: '' },
  { name: 'ok', workspace_id: 'x'.repeat(200) },
  { disabled: null },
  { name: '\u0000' },
  { name: 'ok', limit_reset: ['daily'] },
];

const ROUTES: Array<[string, string]> = [
  ['post', '/api/v1/keys'],
  ['get', '/api/v1/keys'],
  ['get', `/api/v1/keys/${'c'.repeat(64)}`],
  ['patch', `/api/v1/keys/${'c'.repeat(64)}`],
  ['delete', `/api/v1/keys/${'c'.repeat(64)}`],
  ['get', '/api/v1/keys/%E0%A4%A'],
  ['get', '/api/v1/keys/..%2F..%2Fetc'],
  ['get', '/api/v1/key'],
];

test.each(ROUTES)(
  '%s %s answers hostile bodies and queries with a 4xx envelope or success, never 5xx',
  async (method, path) => {
    for (const key of [gw.mgmtKey, apiKey]) {
      for (const body of HOSTILE_BODIES) {
        const res = await request(gw.app)
          [method as 'post'](path)
          .set('Authorization', bearer(key))
          .set('Content-Type', 'application/json')
          .send(JSON.stringify(body));
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expectEnvelope(res, res.status);
      }
      for (const query of [
        'offset=abc',
        'limit=0',
        'include_disabled[]=1',
        'workspace_id=',
        'offset=1e400',
        'a[b][c]=d',
      ]) {
        const res = await request(gw.app)[method as 'get'](`${path}?${query}`).set('Authorization', bearer(key));
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expectEnvelope(res, res.status);
      }
    }
  },
);

test('the management key count is unchanged by all the hostile traffic (bad input changes nothing)', async () => {
  const before = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM api_keys WHERE name = 'ok'");
  expect(before[0]!.n).toBe(0);
});
