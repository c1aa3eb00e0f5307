/**
 * The API keys resource through HTTP, against every database kind: status codes, the exact
 * envelope, the Key wire shape, tenant isolation and validation of every input.
 */
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, openTestGateway, type TestGateway } from '../helpers/gateway';
import { hashSecret } from '../../src/keys/secrets';
import { expectSchema } from '../helpers/expect-schema';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

const KEY_FIELDS = [
  'hash',
  'name',
  'label',
  'disabled',
  'limit',
  'limit_remaining',
  'limit_reset',
  'include_byok_in_limit',
  'usage',
  'usage_daily',
  'usage_weekly',
  'usage_monthly',
  'byok_usage',
  'byok_usage_daily',
  'byok_usage_weekly',
  'byok_usage_monthly',
  'created_at',
  'updated_at',
  'expires_at',
  'creator_user_id',
  'external_user',
  'workspace_id',
];

describe.each(DATABASES)('API keys on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let other: TestGateway;

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind));
    other = await createTestGateway(db, kv);
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  const mgmt = () => bearer(gw.mgmtKey);

  test('POST /keys → 201 with every Key field and a one-time secret', async () => {
    const res = await request(gw.app).post('/api/v1/keys').set('Authorization', mgmt()).send({
      name: 'Pipeline',
      limit: 12.5,
      limit_reset: 'monthly',
      expires_at: '2099-01-01T00:00:00.000Z',
      creator_user_id: 'user_1',
    });
    expect(res.status).toBe(201);
    expectSchema(res.body, 'keys.create.response');
    expect(res.body.key).toMatch(/^sk-sy-v1-[0-9a-f]{64}$/);
    expect(Object.keys(res.body.data).sort()).toEqual([...KEY_FIELDS].sort());
    expect(res.body.data).toMatchObject({
      hash: hashSecret(res.body.key),
      name: 'Pipeline',
      disabled: false,
      limit: 12.5,
      limit_remaining: 12.5,
      limit_reset: 'monthly',
      usage: 0,
      expires_at: '2099-01-01T00:00:00.000Z',
      creator_user_id: 'user_1',
      external_user: null,
      updated_at: null,
      workspace_id: gw.defaultWorkspaceId,
    });
    expect(res.body.data.label).toMatch(/^sk-sy-v1-[0-9a-f]{3}\.\.\.[0-9a-f]{3}$/);
    expect(JSON.stringify(res.body.data)).not.toContain(res.body.key);
  });

  test('the secret is stored only as its hash', async () => {
    const { secret } = await createInferenceKey(gw);
    const dump = JSON.stringify(await db.query('SELECT * FROM api_keys'));
    expect(dump).not.toContain(secret);
    expect(dump).toContain(hashSecret(secret));
  });

  test('GET /keys lists the default workspace, most recent first; disabled only on request', async () => {
    const a = await createInferenceKey(gw, { name: 'list-a' });
    const b = await createInferenceKey(gw, { name: 'list-b' });
    await request(gw.app)
      .patch(`/api/v1/keys/${a.hash}`)
      .set('Authorization', mgmt())
      .send({ disabled: true })
      .expect(200);
    const res = await request(gw.app).get('/api/v1/keys').set('Authorization', mgmt()).expect(200);
    expectSchema(res.body, 'keys.list.response');
    const hashes = res.body.data.map((k: { hash: string }) => k.hash);
    expect(hashes).toContain(b.hash);
    expect(hashes).not.toContain(a.hash);
    expect(hashes.indexOf(b.hash)).toBe(0);
    const all = await request(gw.app)
      .get('/api/v1/keys?include_disabled=true')
      .set('Authorization', mgmt())
      .expect(200);
    expect(all.body.data.map((k: { hash: string }) => k.hash)).toContain(a.hash);
    const paged = await request(gw.app)
      .get('/api/v1/keys?include_disabled=true&offset=1')
      .set('Authorization', mgmt())
      .expect(200);
    expect(paged.body.data.length).toBe(all.body.data.length - 1);
    expect(paged.body.data[0].hash).toBe(all.body.data[1].hash);
  });

  test('GET, PATCH, DELETE /keys/{hash}', async () => {
    const { hash } = await createInferenceKey(gw, { name: 'crud' });
    const got = await request(gw.app).get(`/api/v1/keys/${hash}`).set('Authorization', mgmt()).expect(200);
    expectSchema(got.body, 'keys.get.response');
    expect(got.body.data.name).toBe('crud');
    const patched = await request(gw.app)
      .patch(`/api/v1/keys/${hash}`)
      .set('Authorization', mgmt())
      .send({ name: 'renamed', limit: 3, limit_reset: 'daily', include_byok_in_limit: true });
    expect(patched.status).toBe(200);
    expectSchema(patched.body, 'keys.get.response');
    expect(patched.body.data).toMatchObject({
      name: 'renamed',
      limit: 3,
      limit_reset: 'daily',
      include_byok_in_limit: true,
    });
    expect(typeof patched.body.data.updated_at).toBe('string');
    const cleared = await request(gw.app)
      .patch(`/api/v1/keys/${hash}`)
      .set('Authorization', mgmt())
      .send({ limit: null });
    expect(cleared.body.data).toMatchObject({ limit: null, limit_remaining: null, name: 'renamed' });
    const del = await request(gw.app).delete(`/api/v1/keys/${hash}`).set('Authorization', mgmt());
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ deleted: true });
    expectSchema(del.body, 'deleted.response');
    const again = await request(gw.app).delete(`/api/v1/keys/${hash}`).set('Authorization', mgmt());
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: { code: 404, message: 'Resource not found' } });
    await request(gw.app).get(`/api/v1/keys/${hash}`).set('Authorization', mgmt()).expect(404);
  });

  test('unknown hash → 404 on get, patch and delete', async () => {
    const unknown = 'a'.repeat(64);
    for (const method of ['get', 'patch', 'delete'] as const) {
      const res = await request(gw.app)
        [method](`/api/v1/keys/${unknown}`)
        .set('Authorization', mgmt())
        .send({ name: 'x' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 404, message: 'Resource not found' } });
    }
  });

  test("tenant isolation: another organization's management key cannot see or change this org's keys", async () => {
    const { hash, secret } = await createInferenceKey(gw, { name: 'private' });
    const foreign = bearer(other.mgmtKey);
    await request(other.app).get(`/api/v1/keys/${hash}`).set('Authorization', foreign).expect(404);
    await request(other.app)
      .patch(`/api/v1/keys/${hash}`)
      .set('Authorization', foreign)
      .send({ disabled: true })
      .expect(404);
    await request(other.app).delete(`/api/v1/keys/${hash}`).set('Authorization', foreign).expect(404);
    const list = await request(other.app)
      .get('/api/v1/keys?include_disabled=true')
      .set('Authorization', foreign)
      .expect(200);
    expect(list.body.data.map((k: { hash: string }) => k.hash)).not.toContain(hash);
    await request(other.app)
      .get(`/api/v1/keys?workspace_id=${gw.defaultWorkspaceId}`)
      .set('Authorization', foreign)
      .expect(404);
    await request(other.app)
      .post('/api/v1/keys')
      .set('Authorization', foreign)
      .send({ name: 'x', workspace_id: gw.defaultWorkspaceId })
      .expect(404);
    // the key still works and is unchanged
    const mine = await request(gw.app).get('/api/v1/key').set('Authorization', bearer(secret)).expect(200);
    expect(mine.body.data.workspace_id).toBe(gw.defaultWorkspaceId);
  });

  test('GET /key returns the calling key with the fields the SDK requires', async () => {
    const { secret } = await createInferenceKey(gw, { name: 'me', limit: 5 });
    const res = await request(gw.app).get('/api/v1/key').set('Authorization', bearer(secret)).expect(200);
    expect(res.body.data).toMatchObject({
      limit: 5,
      limit_remaining: 5,
      is_management_key: false,
      is_free_tier: false,
      allowed_data_regions: ['global'],
      free_model_daily_requests: { limit: 0, remaining: 0, used: 0 },
      organization_id: gw.orgId,
      workspace_id: gw.defaultWorkspaceId,
    });
    expect(res.body.data.hash).toBeUndefined();
    const own = await request(gw.app).get('/api/v1/key').set('Authorization', mgmt()).expect(200);
    expect(own.body.data.is_management_key).toBe(true);
  });

  test('management routes refuse inference keys with the spec message', async () => {
    const { secret, hash } = await createInferenceKey(gw);
    for (const [method, path] of [
      ['get', '/api/v1/keys'],
      ['post', '/api/v1/keys'],
      ['delete', `/api/v1/keys/${hash}`],
    ] as const) {
      const res = await request(gw.app)[method](path).set('Authorization', bearer(secret)).send({ name: 'x' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: { code: 403, message: 'Only management keys can perform this operation' } });
    }
  });

  test.each([
    ['missing name', {}],
    ['empty name', { name: '' }],
    ['wrong type', { name: 5 }],
    ['negative limit', { name: 'x', limit: -1 }],
    ['unknown limit_reset', { name: 'x', limit_reset: 'hourly' }],
    ['non-UTC expiry', { name: 'x', expires_at: '2099-01-01T00:00:00+02:00' }],
    ['minute-precision expiry', { name: 'x', expires_at: '2099-01-01T00:00Z' }],
    ['past expiry', { name: 'x', expires_at: '2001-01-01T00:00:00Z' }],
    ['unknown field', { name: 'x', colour: 'red' }],
    ['array body', [1, 2]],
    ['string body', 'hello'],
  ])('POST /keys rejects %s with a 400 envelope and creates nothing', async (_label, body) => {
    const before = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
    const res = await request(gw.app)
      .post('/api/v1/keys')
      .set('Authorization', mgmt())
      .send(body as object);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(400);
    expect(res.body.error.message).toBe('Invalid request parameters');
    expect(Array.isArray(res.body.error.metadata.errors)).toBe(true);
    const after = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  test.each([
    ['PATCH empty body', 'patch', `/api/v1/keys/${'b'.repeat(64)}`, {}],
    ['PATCH bad type', 'patch', `/api/v1/keys/${'b'.repeat(64)}`, { disabled: 'yes' }],
    ['bad offset', 'get', '/api/v1/keys?offset=-1', undefined],
    ['bad include_disabled', 'get', '/api/v1/keys?include_disabled=maybe', undefined],
    ['repeated offset', 'get', '/api/v1/keys?offset=1&offset=2', undefined],
  ])('%s → 400', async (_label, method, path, body) => {
    const req = request(gw.app)[method as 'get'](path).set('Authorization', mgmt());
    const res = body === undefined ? await req : await req.send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 400, message: 'Invalid request parameters' });
  });
});
