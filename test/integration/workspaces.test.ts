/**
 * Workspaces through HTTP on every database kind: CRUD with exact status codes, the Workspace
 * wire shape the SDK requires, UUID and slug addressing, slug rules and uniqueness, the delete
 * guards (default workspace, live keys), management-only access and tenant isolation.
 */
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, openTestGateway, type TestGateway } from '../helpers/gateway';
import type { Database } from '../../src/store/db';
import { expectSchema } from '../helpers/expect-schema';
import type { Kv } from '../../src/kv/kv';

const WORKSPACE_FIELDS = [
  'id',
  'name',
  'slug',
  'description',
  'default_text_model',
  'default_image_model',
  'default_provider_sort',
  'default_guardrail_id',
  'is_observability_io_logging_enabled',
  'is_observability_broadcast_enabled',
  'is_data_discount_logging_enabled',
  'io_logging_sampling_rate',
  'io_logging_api_key_ids',
  'created_at',
  'updated_at',
  'created_by',
  'include_byok_in_budgets',
  'disabled_server_tools',
  'is_embeddings_cache_enabled',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(DATABASES)('workspaces on $name', (dbKind) => {
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

  const api = (g: TestGateway = gw) => ({
    get: (path: string) => request(g.app).get(`/api/v1${path}`).set('Authorization', bearer(g.mgmtKey)),
    post: (path: string, body: unknown) =>
      request(g.app)
        .post(`/api/v1${path}`)
        .set('Authorization', bearer(g.mgmtKey))
        .send(body as object),
    patch: (path: string, body: unknown) =>
      request(g.app)
        .patch(`/api/v1${path}`)
        .set('Authorization', bearer(g.mgmtKey))
        .send(body as object),
    del: (path: string) => request(g.app).delete(`/api/v1${path}`).set('Authorization', bearer(g.mgmtKey)),
  });

  test('POST /workspaces → 201 with every Workspace field; defaults are sensible', async () => {
    const res = await api().post('/workspaces', { name: 'Research', slug: 'research', description: 'R&D' });
    expect(res.status).toBe(201);
    expectSchema(res.body, 'workspaces.get.response');
    expect(Object.keys(res.body.data).sort()).toEqual([...WORKSPACE_FIELDS].sort());
    expect(res.body.data).toMatchObject({
      name: 'Research',
      slug: 'research',
      description: 'R&D',
      default_text_model: null,
      default_image_model: null,
      default_provider_sort: null,
      is_observability_io_logging_enabled: false,
      is_observability_broadcast_enabled: false,
      is_data_discount_logging_enabled: false,
      io_logging_sampling_rate: 1,
      io_logging_api_key_ids: null,
      updated_at: null,
      created_by: null,
      include_byok_in_budgets: false,
    });
    expect(res.body.data.id).toMatch(UUID);
    expect(res.body.data.default_guardrail_id).toMatch(UUID);
    expect(new Date(res.body.data.created_at).toISOString()).toBe(res.body.data.created_at);
  });

  test('every optional setting is stored and echoed', async () => {
    const body = {
      name: 'Settings',
      slug: 'settings-1',
      default_text_model: 'openai/gpt-4o',
      default_image_model: 'openai/dall-e-3',
      default_provider_sort: 'price',
      io_logging_api_key_ids: [1, 2],
      io_logging_sampling_rate: 0.25,
      is_observability_io_logging_enabled: true,
      is_observability_broadcast_enabled: true,
      is_data_discount_logging_enabled: true,
      disabled_server_tools: ['openrouter:web_search'],
    };
    const res = await api().post('/workspaces', body).expect(201);
    const { name, slug, ...settings } = body;
    expect(res.body.data).toMatchObject({ name, slug, ...settings });
    const again = await api().get(`/workspaces/${res.body.data.id}`).expect(200);
    expect(again.body.data).toEqual(res.body.data);
  });

  test('GET by UUID and by slug return the same workspace; unknown → 404', async () => {
    const created = (await api().post('/workspaces', { name: 'Addr', slug: 'addr' }).expect(201)).body.data;
    const byId = await api().get(`/workspaces/${created.id}`).expect(200);
    const bySlug = await api().get('/workspaces/addr').expect(200);
    expect(byId.body.data).toEqual(created);
    expect(bySlug.body.data).toEqual(created);
    expect(byId.body.data.id).toBe(created.id);
    const upper = await api().get(`/workspaces/${created.id.toUpperCase()}`).expect(200);
    expect(upper.body.data.id).toBe(created.id);
    const missing = await api().get('/workspaces/no-such-slug');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: 404, message: 'Resource not found' } });
    await api().get('/workspaces/00000000-0000-4000-8000-000000000000').expect(404);
  });

  test('slug rules: pattern and length → 400; duplicate in the org → 409; another org may reuse it', async () => {
    for (const slug of ['', 'Upper', 'with space', '-lead', 'trail-', 'double--dash', 'a'.repeat(51)]) {
      const res = await api().post('/workspaces', { name: 'Bad', slug });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(400);
    }
    await api()
      .post('/workspaces', { name: 'x', slug: 'a'.repeat(50) })
      .expect(201);
    await api().post('/workspaces', { name: 'Dup', slug: 'dup' }).expect(201);
    const dup = await api().post('/workspaces', { name: 'Dup 2', slug: 'dup' });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 409, message: expect.stringContaining('"dup" already exists') });
    await api(other).post('/workspaces', { name: 'Dup', slug: 'dup' }).expect(201);
  });

  test('a UUID-shaped slug → 400 naming slug, on create and on PATCH, and nothing changes', async () => {
    const uuidSlug = '11111111-2222-3333-4444-555555555555';
    const created = await api().post('/workspaces', { name: 'Looks like an id', slug: uuidSlug });
    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject({
      code: 400,
      message: 'Invalid request parameters',
      metadata: { detail: expect.stringContaining('slug') },
    });
    expect(created.body.error.metadata.errors).toEqual([
      { path: 'body.slug', message: expect.stringContaining('UUID') },
    ]);
    const list = await api().get('/workspaces?limit=100').expect(200);
    expect(list.body.data.map((w: { slug: string }) => w.slug)).not.toContain(uuidSlug);

    const ws = (await api().post('/workspaces', { name: 'Keeps slug', slug: 'keeps-slug' }).expect(201)).body.data;
    const patched = await api().patch('/workspaces/keeps-slug', { slug: uuidSlug, name: 'Renamed' });
    expect(patched.status).toBe(400);
    expect(patched.body.error.metadata.errors[0].path).toBe('body.slug');
    expect((await api().get(`/workspaces/${ws.id}`).expect(200)).body.data).toEqual(ws);

    // Only the exact UUID shape is refused: a slug that merely resembles one is fine and addressable.
    const near = '11111111-2222-3333-4444-55555555555x';
    await api().post('/workspaces', { name: 'Near', slug: near }).expect(201);
    expect((await api().get(`/workspaces/${near}`).expect(200)).body.data.slug).toBe(near);
  });

  test('io_logging_api_key_ids must hold positive safe integers → else 400, on create and PATCH', async () => {
    for (const ids of [[2 ** 53], [1e300], [-1], [0], [1.5], ['7']]) {
      const res = await api().post('/workspaces', { name: 'ids', slug: 'io-ids', io_logging_api_key_ids: ids });
      expect(res.status).toBe(400);
      expect(res.body.error.metadata.errors[0].path).toBe('body.io_logging_api_key_ids.0');
    }
    await api().get('/workspaces/io-ids').expect(404);
    const max = Number.MAX_SAFE_INTEGER;
    const ws = (
      await api()
        .post('/workspaces', { name: 'ids', slug: 'io-ids', io_logging_api_key_ids: [1, max] })
        .expect(201)
    ).body.data;
    expect(ws.io_logging_api_key_ids).toEqual([1, max]);
    await api()
      .patch('/workspaces/io-ids', { io_logging_api_key_ids: [max + 1] })
      .expect(400);
    expect((await api().get('/workspaces/io-ids').expect(200)).body.data.io_logging_api_key_ids).toEqual([1, max]);
  });

  test('body validation: missing name/slug, name too long, unknown field, bad sampling rate → 400', async () => {
    await api().post('/workspaces', { slug: 'no-name' }).expect(400);
    await api().post('/workspaces', { name: 'No slug' }).expect(400);
    await api()
      .post('/workspaces', { name: 'n'.repeat(101), slug: 'long' })
      .expect(400);
    await api()
      .post('/workspaces', { name: 'x', slug: 'x1', description: 'd'.repeat(501) })
      .expect(400);
    await api().post('/workspaces', { name: 'x', slug: 'x2', bogus: true }).expect(400);
    await api().post('/workspaces', { name: 'x', slug: 'x3', io_logging_sampling_rate: 0 }).expect(400);
    await api().post('/workspaces', { name: 'x', slug: 'x4', default_provider_sort: 'cheapest' }).expect(400);
  });

  test('GET /workspaces pages with offset/limit and total_count; default workspace first', async () => {
    const fresh = await createTestGateway(db, kv);
    for (const i of [1, 2, 3])
      await api(fresh)
        .post('/workspaces', { name: `W${i}`, slug: `w${i}` })
        .expect(201);
    const all = await api(fresh).get('/workspaces').expect(200);
    expectSchema(all.body, 'workspaces.list.response');
    expect(all.body.total_count).toBe(4);
    expect(all.body.data.map((w: { slug: string }) => w.slug)).toEqual(['default', 'w1', 'w2', 'w3']);
    const page = await api(fresh).get('/workspaces?offset=1&limit=2').expect(200);
    expect(page.body.total_count).toBe(4);
    expect(page.body.data.map((w: { slug: string }) => w.slug)).toEqual(['w1', 'w2']);
    await api(fresh).get('/workspaces?limit=101').expect(400);
    await api(fresh).get('/workspaces?limit=0').expect(400);
    await api(fresh).get('/workspaces?offset=-1').expect(400);
  });

  test('PATCH changes given fields only, moves updated_at, 409 on a taken slug, addressable by new slug', async () => {
    const created = (
      await api().post('/workspaces', { name: 'Patch', slug: 'patch-me', description: 'keep' }).expect(201)
    ).body.data;
    await api().post('/workspaces', { name: 'Taken', slug: 'taken' }).expect(201);
    const res = await api()
      .patch('/workspaces/patch-me', { name: 'Patched', slug: 'patched', default_provider_sort: 'latency' })
      .expect(200);
    expectSchema(res.body, 'workspaces.get.response');
    expect(res.body.data).toMatchObject({
      id: created.id,
      name: 'Patched',
      slug: 'patched',
      description: 'keep',
      default_provider_sort: 'latency',
    });
    expect(res.body.data.updated_at).not.toBeNull();
    expect(res.body.data.created_at).toBe(created.created_at);
    await api().get('/workspaces/patch-me').expect(404);
    await api().get('/workspaces/patched').expect(200);
    const cleared = await api().patch(`/workspaces/${created.id}`, { description: null }).expect(200);
    expect(cleared.body.data.description).toBeNull();
    const taken = await api().patch('/workspaces/patched', { slug: 'taken' });
    expect(taken.status).toBe(409);
    await api().patch('/workspaces/patched', { slug: 'Not Valid' }).expect(400);
    await api().patch('/workspaces/nope', { name: 'x' }).expect(404);
  });

  test('DELETE → 200 {deleted:true}; then 404 everywhere; the slug is free again', async () => {
    const created = (await api().post('/workspaces', { name: 'Gone', slug: 'gone' }).expect(201)).body.data;
    const res = await api().del('/workspaces/gone');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true });
    expectSchema(res.body, 'deleted.response');
    await api().get(`/workspaces/${created.id}`).expect(404);
    await api().del(`/workspaces/${created.id}`).expect(404);
    const list = await api().get('/workspaces?limit=100').expect(200);
    expect(list.body.data.map((w: { id: string }) => w.id)).not.toContain(created.id);
    const reborn = await api().post('/workspaces', { name: 'Gone again', slug: 'gone' }).expect(201);
    expect(reborn.body.data.id).not.toBe(created.id);
    // Keys cannot be created in a deleted workspace.
    await api().post('/keys', { name: 'late', workspace_id: created.id }).expect(404);
  });

  test('DELETE with live keys → 409 naming the reason; after deleting the keys it succeeds', async () => {
    const ws = (await api().post('/workspaces', { name: 'Busy', slug: 'busy' }).expect(201)).body.data;
    const key = await createInferenceKey(gw, { name: 'k', workspace_id: 'busy' });
    await api().patch(`/keys/${key.hash}`, { disabled: true }).expect(200);
    const res = await api().del('/workspaces/busy');
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/1 active API key/);
    expect(res.body.error.metadata).toEqual({ active_key_count: 1 });
    await api().get(`/workspaces/${ws.id}`).expect(200);
    await api().del(`/keys/${key.hash}`).expect(200);
    await api().del(`/workspaces/${ws.id}`).expect(200);
  });

  test('the default workspace cannot be deleted, with or without the confirmation flag → 403', async () => {
    const res = await api().del('/workspaces/default');
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe('The default workspace cannot be deleted');
    await api().del(`/workspaces/${gw.defaultWorkspaceId}?confirm_default_workspace_deletion=true`).expect(403);
    await api().get('/workspaces/default').expect(200);
  });

  test("another organization's workspace is 404 by UUID and by slug, for every verb", async () => {
    const theirs = (await api(other).post('/workspaces', { name: 'Theirs', slug: 'theirs-only' }).expect(201)).body
      .data;
    for (const ref of [theirs.id, 'theirs-only']) {
      await api().get(`/workspaces/${ref}`).expect(404);
      await api().patch(`/workspaces/${ref}`, { name: 'mine' }).expect(404);
      await api().del(`/workspaces/${ref}`).expect(404);
      await api().get(`/workspaces/${ref}/members`).expect(404);
      await api().get(`/workspaces/${ref}/budgets`).expect(404);
      await api()
        .post(`/workspaces/${ref}/members/add`, { user_ids: ['u'] })
        .expect(404);
    }
    await api(other).get(`/workspaces/${theirs.id}`).expect(200);
    const mine = await api().get('/workspaces?limit=100').expect(200);
    expect(mine.body.data.map((w: { id: string }) => w.id)).not.toContain(theirs.id);
  });

  test('management key required: inference key → 403, no key → 401', async () => {
    const key = await createInferenceKey(gw);
    const res = await request(gw.app).get('/api/v1/workspaces').set('Authorization', bearer(key.secret));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: 403, message: 'Only management keys can perform this operation' } });
    await request(gw.app)
      .post('/api/v1/workspaces')
      .set('Authorization', bearer(key.secret))
      .send({ name: 'x', slug: 'x' })
      .expect(403);
    await request(gw.app).get('/api/v1/workspaces').expect(401);
  });
});
