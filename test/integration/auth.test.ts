/**
 * Authentication through HTTP: each 401 cause, the 403s for the wrong key kind, and key
 * deletion/disabling taking effect on a second app instance within a second (pub/sub), with
 * the cache TTL as the safety net when messages cannot arrive.
 */
import express from 'express';
import request from 'supertest';
import { DATABASES, KVS, REDIS_URL, describeIf, openTestPglite, openTestRedisKv, uniqueId } from '../helpers/services';
import {
  bearer,
  createInferenceKey,
  createTestGateway,
  gatewayApp,
  openTestGateway,
  type TestGateway,
} from '../helpers/gateway';
import { requireInferenceKey, authenticate } from '../../src/auth/authenticate';
import { errorHandler } from '../../src/http/error-handler';
import { requestContext } from '../../src/http/request-context';
import { createLogger } from '../../src/observability/logger';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';
import { MemoryKv } from '../../src/kv/memory';
import { until } from '../helpers/eventually';

/** Poll `probe` until it returns true or `withinMs` passes; returns the elapsed ms or throws. */
async function within(withinMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  await until(`the condition within ${withinMs} ms`, probe, { timeoutMs: withinMs, everyMs: 20 });
  return Date.now() - started;
}

describe.each(DATABASES)('authentication on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let now = Date.now();

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind, {}, () => now));
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  test.each([
    ['no header', undefined, 'Missing Authentication header'],
    ['empty header', '', 'Missing Authentication header'],
    ['basic scheme', 'Basic dXNlcjpwYXNz', 'Invalid Authentication header: expected "Bearer <API key>"'],
    ['bearer without token', 'Bearer ', 'Invalid Authentication header: expected "Bearer <API key>"'],
    ['unknown key', 'Bearer sk-sy-v1-' + '0'.repeat(64), 'Invalid API key'],
  ])('%s → 401', async (_label, header, message) => {
    const req = request(gw.app).get('/api/v1/key');
    const res = header === undefined ? await req : await req.set('Authorization', header);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 401, message } });
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  test('401 also for unknown routes without credentials (routes are not revealed)', async () => {
    const res = await request(gw.app).get('/api/v1/does-not-exist');
    expect(res.status).toBe(401);
  });

  test('the bearer scheme is case-insensitive', async () => {
    await request(gw.app).get('/api/v1/key').set('Authorization', `bearer ${gw.mgmtKey}`).expect(200);
  });

  test('disabled key → 401, and enabled again → 200', async () => {
    const { secret, hash } = await createInferenceKey(gw);
    await request(gw.app).get('/api/v1/key').set('Authorization', bearer(secret)).expect(200);
    await request(gw.app)
      .patch(`/api/v1/keys/${hash}`)
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ disabled: true })
      .expect(200);
    const res = await request(gw.app).get('/api/v1/key').set('Authorization', bearer(secret));
    expect(res.status).toBe(401);
    expect(res.body.error.message).toBe('API key is disabled');
    await request(gw.app)
      .patch(`/api/v1/keys/${hash}`)
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ disabled: false })
      .expect(200);
    await request(gw.app).get('/api/v1/key').set('Authorization', bearer(secret)).expect(200);
  });

  test('expired key → 401 once the clock passes expires_at', async () => {
    now = Date.parse('2030-01-01T00:00:00Z');
    const { secret } = await createInferenceKey(gw, { name: 'short-lived', expires_at: '2030-01-01T01:00:00Z' });
    await request(gw.app).get('/api/v1/key').set('Authorization', bearer(secret)).expect(200);
    now = Date.parse('2030-01-01T01:00:00Z');
    const res = await request(gw.app).get('/api/v1/key').set('Authorization', bearer(secret));
    expect(res.status).toBe(401);
    expect(res.body.error.message).toBe('API key has expired');
    now = Date.now();
  });

  test('a deleted key stops working at once on the same instance', async () => {
    const { secret, hash } = await createInferenceKey(gw);
    await request(gw.app).get('/api/v1/key').set('Authorization', bearer(secret)).expect(200);
    await request(gw.app).delete(`/api/v1/keys/${hash}`).set('Authorization', bearer(gw.mgmtKey)).expect(200);
    await request(gw.app).get('/api/v1/key').set('Authorization', bearer(secret)).expect(401);
  });
});

describe('management-only prefixes (/keys*, /workspaces*, /analytics/*)', () => {
  let db: Database;
  let gw: TestGateway;
  let apiKey: string;
  beforeAll(async () => {
    db = await openTestPglite();
    gw = await createTestGateway(db, new MemoryKv(`t:${uniqueId()}:`));
    apiKey = (await createInferenceKey(gw)).secret;
  });
  afterAll(() => db.close());

  const FORBIDDEN = { error: { code: 403, message: 'Only management keys can perform this operation' } };

  test.each([
    ['post', '/api/v1/analytics/query'],
    ['get', '/api/v1/analytics/meta'],
    ['get', '/api/v1/keys'],
    ['get', '/api/v1/keys/not/a/route'],
    ['post', '/api/v1/KEYS'],
    ['delete', '/api/v1/workspaces/default/guardrails'],
    ['get', '/api/v1/workspaces/'],
  ])('an inference key gets 403 on %s %s, whether or not a route exists there', async (method, path) => {
    const res = await request(gw.app)
      [method as 'get'](path)
      .set('Authorization', bearer(apiKey))
      .send({ metrics: ['request_count'] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });

  test('a management key reaches the routes there, or the 404 where none exists yet', async () => {
    await request(gw.app).get('/api/v1/keys').set('Authorization', bearer(gw.mgmtKey)).expect(200);
    await request(gw.app)
      .post('/api/v1/analytics/query')
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ metrics: ['request_count'] })
      .expect(200);
    const res = await request(gw.app)
      .post('/api/v1/analytics/export')
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ metrics: ['request_count'] });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      code: 404,
      message: 'Resource not found: no route for POST /api/v1/analytics/export',
    });
    await request(gw.app)
      .get('/api/v1/workspaces/default/guardrails')
      .set('Authorization', bearer(gw.mgmtKey))
      .expect(404);
  });

  test('/key and look-alike paths are not management-only', async () => {
    await request(gw.app).get('/api/v1/key').set('Authorization', bearer(apiKey)).expect(200);
    await request(gw.app).get('/api/v1/keysmith').set('Authorization', bearer(apiKey)).expect(404);
    await request(gw.app).get('/api/v1/analyticsx').set('Authorization', bearer(apiKey)).expect(404);
  });
});

describe('requireInferenceKey', () => {
  let db: Database;
  let gw: TestGateway;
  let mini: express.Express;
  beforeAll(async () => {
    db = await openTestPglite();
    gw = await createTestGateway(db, new MemoryKv(`t:${uniqueId()}:`));
    mini = express();
    mini.use(requestContext(), authenticate(gw.deps.keyCache, gw.deps.metrics), requireInferenceKey());
    mini.post('/infer', (_req, res) => {
      res.json({ ok: true });
    });
    mini.use(errorHandler(createLogger('silent')));
  });
  afterAll(() => db.close());

  test('management keys are refused on inference routes with 403', async () => {
    const res = await request(mini).post('/infer').set('Authorization', bearer(gw.mgmtKey));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe(403);
  });

  test('inference keys pass', async () => {
    const { secret } = await createInferenceKey(gw);
    await request(mini).post('/infer').set('Authorization', bearer(secret)).expect(200);
  });
});

describe.each(KVS)('key changes reach a second app instance ($name)', (kvKind) => {
  let db: Database;
  let kvA: Kv;
  let kvB: Kv;
  let gw: TestGateway;
  let other: Awaited<ReturnType<typeof gatewayApp>>;

  beforeAll(async () => {
    const prefix = `t:${uniqueId()}:`;
    db = await openTestPglite();
    kvA = await kvKind.open(prefix);
    // Two replicas share Redis (two connections, same prefix); embedded ones share the twin.
    kvB = kvKind.name === 'memory' ? kvA : await kvKind.open(prefix);
    gw = await createTestGateway(db, kvA, { auth: { keyCacheTtlMs: 600000 } });
    // Both instances subscribed to key invalidations before they were returned (start() awaits the confirmation).
    other = await gatewayApp(db, kvB, { auth: { keyCacheTtlMs: 600000 } });
  });
  afterAll(async () => {
    if (kvB !== kvA) await kvB.close();
    await kvA.close();
    await db.close();
  });

  test('deleting on instance A rejects the key on instance B within a second', async () => {
    const { secret, hash } = await createInferenceKey(gw);
    await request(other.app).get('/api/v1/key').set('Authorization', bearer(secret)).expect(200); // cached on B
    await request(gw.app).delete(`/api/v1/keys/${hash}`).set('Authorization', bearer(gw.mgmtKey)).expect(200);
    await within(
      1000,
      async () => (await request(other.app).get('/api/v1/key').set('Authorization', bearer(secret))).status === 401,
    );
  });

  test('disabling on instance A rejects the key on instance B within a second', async () => {
    const { secret, hash } = await createInferenceKey(gw);
    await request(other.app).get('/api/v1/key').set('Authorization', bearer(secret)).expect(200);
    await request(gw.app)
      .patch(`/api/v1/keys/${hash}`)
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ disabled: true })
      .expect(200);
    await within(
      1000,
      async () => (await request(other.app).get('/api/v1/key').set('Authorization', bearer(secret))).status === 401,
    );
  });
});

describeIf(REDIS_URL)('cache TTL is the safety net when invalidations cannot arrive', () => {
  test('a replica that misses the message drops the key after the TTL', async () => {
    const db = await openTestPglite();
    // Different prefixes: B never hears A's invalidation, as if the message were lost.
    const kvA = await openTestRedisKv();
    const kvB = await openTestRedisKv();
    try {
      const gw = await createTestGateway(db, kvA);
      const other = await gatewayApp(db, kvB, { auth: { keyCacheTtlMs: 300 } });
      const { secret, hash } = await createInferenceKey(gw);
      await request(other.app).get('/api/v1/key').set('Authorization', bearer(secret)).expect(200);
      await request(gw.app).delete(`/api/v1/keys/${hash}`).set('Authorization', bearer(gw.mgmtKey)).expect(200);
      const elapsed = await within(
        2000,
        async () => (await request(other.app).get('/api/v1/key').set('Authorization', bearer(secret))).status === 401,
      );
      expect(elapsed).toBeGreaterThan(0);
    } finally {
      await kvA.close();
      await kvB.close();
      await db.close();
    }
  });
});
