/**
 * Who may reach which file, through HTTP against every database kind: workspace scoping for
 * inference and management keys, the `workspace_id` rules of the spec (UUID or 400, unknown or
 * unreachable → 404), cross-organization attempts that must look exactly like a missing file
 * and delete nothing, and concurrent deletes of one file (exactly one 200).
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, openTestGateway, type TestGateway } from '../helpers/gateway';
import { insertWorkspace } from '../../src/workspaces/repository';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

const NOT_FOUND = { error: { code: 404, message: 'Resource not found' } };

describe.each(DATABASES)('files tenancy on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let other: TestGateway;
  /** A second workspace of gw's organization, and inference keys of each workspace. */
  let ws2: string;
  let keyDefault: string;
  let keyWs2: string;
  let otherInference: string;

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind));
    other = await createTestGateway(db, kv);
    ws2 = (await insertWorkspace(db, { id: randomUUID(), orgId: gw.orgId, name: 'Research', slug: 'research' })).id;
    keyDefault = (await createInferenceKey(gw, { name: 'default ws' })).secret;
    keyWs2 = (await createInferenceKey(gw, { name: 'ws2', workspace_id: ws2 })).secret;
    otherInference = (await createInferenceKey(other, { name: 'other org' })).secret;
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  const upload = (secret: string, workspaceId?: string) =>
    request(gw.app)
      .post('/api/v1/files')
      .query(workspaceId ? { workspace_id: workspaceId } : {})
      .set('Authorization', bearer(secret))
      .attach('file', Buffer.from(`tenant data ${randomUUID()}\n`), 'secret.txt');

  const call = (method: 'get' | 'delete', path: string, secret: string, workspaceId?: string) =>
    request(gw.app)
      [method](`/api/v1/files${path}`)
      .query(workspaceId ? { workspace_id: workspaceId } : {})
      .set('Authorization', bearer(secret));

  const stored = async (id: string) => (await db.query('SELECT 1 FROM files WHERE id = $1', [id])).length === 1;

  test('an inference key uploads into its own workspace; the management key finds it in the default workspace', async () => {
    const up = await upload(keyDefault);
    expect(up.status).toBe(200);
    const row = await db.query<{ workspace_id: string }>('SELECT workspace_id FROM files WHERE id = $1', [up.body.id]);
    expect(row[0]!.workspace_id).toBe(gw.defaultWorkspaceId);
    expect((await call('get', `/${up.body.id}`, gw.mgmtKey)).status).toBe(200);
    expect((await call('get', `/${up.body.id}`, gw.mgmtKey, gw.defaultWorkspaceId)).status).toBe(200);
  });

  test('a key of another workspace of the same organization cannot see, download or delete the file', async () => {
    const id = (await upload(keyDefault)).body.id;
    for (const ws of [undefined, gw.defaultWorkspaceId]) {
      for (const [method, path] of [
        ['get', `/${id}`],
        ['get', `/${id}/content`],
        ['delete', `/${id}`],
      ] as const) {
        const res = await call(method, path, keyWs2, ws);
        expect(res.status).toBe(404);
        expect(res.body).toEqual(NOT_FOUND);
      }
    }
    const list = await call('get', '', keyWs2);
    expect(list.body.data.map((f: { id: string }) => f.id)).not.toContain(id);
    expect((await call('get', '', keyWs2, gw.defaultWorkspaceId)).status).toBe(404);
    expect(await stored(id)).toBe(true);
  });

  test('another organization (management or inference key) gets 404 and deletes nothing', async () => {
    const id = (await upload(keyDefault)).body.id;
    for (const secret of [other.mgmtKey, otherInference]) {
      for (const ws of [undefined, gw.defaultWorkspaceId, ws2]) {
        expect((await call('delete', `/${id}`, secret, ws)).body).toEqual(NOT_FOUND);
        expect((await call('get', `/${id}`, secret, ws)).status).toBe(404);
        expect((await call('get', `/${id}/content`, secret, ws)).status).toBe(404);
      }
      // Its own listing never shows the file, and it cannot upload into gw's workspaces.
      expect((await call('get', '', secret)).body.data.map((f: { id: string }) => f.id)).not.toContain(id);
      const res = await request(gw.app)
        .post('/api/v1/files')
        .query({ workspace_id: gw.defaultWorkspaceId })
        .set('Authorization', bearer(secret))
        .attach('file', Buffer.from('intruder\n'), 'x.txt');
      expect(res.status).toBe(404);
    }
    expect(await stored(id)).toBe(true);
    expect((await call('get', `/${id}`, keyDefault)).status).toBe(200);
  });

  test('a management key reaches every workspace of its organization, through workspace_id', async () => {
    const up = await upload(gw.mgmtKey, ws2);
    expect(up.status).toBe(200);
    const id = up.body.id;
    // Default scope of a management key is the organization's default workspace.
    expect((await call('get', `/${id}`, gw.mgmtKey)).status).toBe(404);
    expect((await call('get', `/${id}`, gw.mgmtKey, ws2)).status).toBe(200);
    // The workspace's own inference key sees it without naming the workspace; the default one never.
    expect((await call('get', `/${id}`, keyWs2)).status).toBe(200);
    expect((await call('get', `/${id}`, keyDefault, ws2)).status).toBe(404);
    expect((await upload(keyDefault, ws2)).status).toBe(404);
    const listed = await call('get', '', gw.mgmtKey, ws2);
    expect(listed.body.data.map((f: { id: string }) => f.id)).toContain(id);
    // Deleting without the workspace misses it (404, nothing deleted); with it, succeeds.
    expect((await call('delete', `/${id}`, gw.mgmtKey)).status).toBe(404);
    expect(await stored(id)).toBe(true);
    const del = await call('delete', `/${id}`, gw.mgmtKey, ws2);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ _shape: 'openrouter', id, type: 'file_deleted' });
    expect(await stored(id)).toBe(false);
  });

  test('workspace_id: not a UUID → 400; unknown UUID → 404; either way nothing deleted', async () => {
    const id = (await upload(keyDefault)).body.id;
    const bad = await call('delete', `/${id}`, gw.mgmtKey, 'research');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 400, message: 'Invalid request parameters' });
    expect((await call('delete', `/${id}`, gw.mgmtKey, randomUUID())).body).toEqual(NOT_FOUND);
    expect(await stored(id)).toBe(true);
  });

  test('deleting a workspace deletes its files, metadata and content; other workspaces keep theirs', async () => {
    const mgmt = (method: 'post' | 'delete', path: string) =>
      request(gw.app)[method](`/api/v1${path}`).set('Authorization', bearer(gw.mgmtKey));
    const doomed = (await mgmt('post', '/workspaces').send({ name: 'Doomed', slug: 'doomed' }).expect(201)).body.data
      .id as string;
    const big = Buffer.alloc(3 * 1024 * 1024 + 5, 'a'); // several content chunks
    const ids: string[] = [];
    for (const bytes of [Buffer.from('first\n'), big]) {
      const res = await mgmt('post', '/files')
        .query({ workspace_id: doomed })
        .attach('file', bytes, 'doomed.txt')
        .expect(200);
      ids.push(res.body.id);
    }
    const elsewhere = (await upload(gw.mgmtKey, ws2)).body.id;
    const chunks = (id: string) => db.query('SELECT seq FROM file_chunks WHERE file_id = $1', [id]);
    expect((await chunks(ids[1]!)).length).toBeGreaterThan(1);

    await mgmt('delete', `/workspaces/${doomed}`).expect(200);
    expect(await db.query('SELECT id FROM files WHERE workspace_id = $1', [doomed])).toEqual([]);
    for (const id of ids) {
      expect(await chunks(id)).toEqual([]);
      expect((await call('get', `/${id}`, gw.mgmtKey, doomed)).body).toEqual(NOT_FOUND);
    }
    expect(await stored(elsewhere)).toBe(true);
    expect((await chunks(elsewhere)).length).toBe(1);
    await call('get', `/${elsewhere}/content`, gw.mgmtKey, ws2).expect(200);
  });

  test('concurrent deletes of one file: exactly one 200, the rest 404, content gone', async () => {
    const id = (await upload(keyDefault)).body.id;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call('delete', `/${id}`, i % 2 === 0 ? keyDefault : gw.mgmtKey)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 404, 404, 404, 404, 404]);
    expect(await stored(id)).toBe(false);
    expect(await db.query('SELECT 1 FROM file_chunks WHERE file_id = $1', [id])).toHaveLength(0);
  });
});
