/**
 * Issue 43 item 9: management keys can be rotated and revoked through the API. A management key
 * may rename, disable, delete or rotate the management keys of its own organization (another
 * organization's are 404, like any key of theirs); the last enabled management key of an
 * organization cannot be disabled or deleted (409), only rotated, so an organization cannot lock
 * itself out; and disabling a key ends its dashboard sessions for good: re-enabling it does not
 * bring them back.
 */
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, openTestGateway, type TestGateway } from '../helpers/gateway';
import { hashSecret } from '../../src/keys/secrets';
import { mintKey } from '../../src/keys/mint';
import { insertKey } from '../../src/keys/repository';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

describe.each(DATABASES)('management keys on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind));
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  /** A fresh organization, so its management keys are only the ones a test makes. */
  const freshOrg = () => createTestGateway(db, kv);

  /** A second management key of `t`'s organization, made as `switchyard keys create --management` makes it. */
  const addManagementKey = async (t: TestGateway, name = 'ops 2') => {
    const { secret, row } = mintKey({ orgId: t.orgId, workspaceId: t.defaultWorkspaceId, name, isManagement: true });
    await insertKey(db, row);
    return { secret, hash: row.hash };
  };

  /** Sign in to the dashboard with `secret`; the session cookie to send back. */
  const signInCookie = async (t: TestGateway, secret: string) => {
    const res = await request(t.app).post('/dashboard/api/session').send({ key: secret }).expect(200);
    return ([] as string[])
      .concat(res.headers['set-cookie'] ?? [])
      .map((c) => c.split(';')[0])
      .join('; ');
  };

  const as = (t: TestGateway, secret: string) => ({
    get: (path: string) => request(t.app).get(`/api/v1${path}`).set('Authorization', bearer(secret)),
    patch: (path: string, body: object) =>
      request(t.app).patch(`/api/v1${path}`).set('Authorization', bearer(secret)).send(body),
    delete: (path: string) => request(t.app).delete(`/api/v1${path}`).set('Authorization', bearer(secret)),
    post: (path: string, body?: object) =>
      request(t.app).post(`/api/v1${path}`).set('Authorization', bearer(secret)).send(body),
  });

  test('a management key renames, disables, re-enables and deletes another management key of its organization', async () => {
    const t = await freshOrg();
    const second = await addManagementKey(t);
    const admin = as(t, t.mgmtKey);
    expect((await admin.get(`/keys/${second.hash}`).expect(200)).body.data).toMatchObject({
      hash: second.hash,
      name: 'ops 2',
      disabled: false,
    });
    expect((await admin.patch(`/keys/${second.hash}`, { name: 'ops two' }).expect(200)).body.data.name).toBe('ops two');

    expect((await admin.patch(`/keys/${second.hash}`, { disabled: true }).expect(200)).body.data.disabled).toBe(true);
    expect((await as(t, second.secret).get('/keys')).body.error).toEqual({ code: 401, message: 'API key is disabled' });
    await admin.patch(`/keys/${second.hash}`, { disabled: false }).expect(200);
    await as(t, second.secret).get('/keys').expect(200);

    expect((await admin.delete(`/keys/${second.hash}`).expect(200)).body).toEqual({ deleted: true });
    expect((await as(t, second.secret).get('/keys')).status).toBe(401);
    await admin.get(`/keys/${second.hash}`).expect(404);
    await admin.get('/keys').expect(200);
  });

  test('the last enabled management key cannot be disabled or deleted (409), by itself or by a disabled one', async () => {
    const t = await freshOrg();
    const own = hashSecret(t.mgmtKey);
    const admin = as(t, t.mgmtKey);
    for (const res of [await admin.patch(`/keys/${own}`, { disabled: true }), await admin.delete(`/keys/${own}`)]) {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe(409);
      expect(res.body.error.message).toMatch(/last enabled management key/);
      expect(res.body.error.message).toMatch(/rotate/);
    }
    // A disabled management key does not count: it cannot sign anyone in.
    const spare = await addManagementKey(t);
    await admin.patch(`/keys/${spare.hash}`, { disabled: true }).expect(200);
    expect((await admin.delete(`/keys/${own}`)).status).toBe(409);
    // Renaming the last one is fine, and it still works.
    await admin.patch(`/keys/${own}`, { name: 'still here' }).expect(200);
    await admin.get('/keys').expect(200);
  });

  test('with another enabled management key, a key may revoke itself; its next call is refused', async () => {
    const t = await freshOrg();
    const second = await addManagementKey(t);
    expect((await as(t, second.secret).delete(`/keys/${second.hash}`).expect(200)).body).toEqual({ deleted: true });
    expect((await as(t, second.secret).get('/keys')).status).toBe(401);
    await as(t, t.mgmtKey).get('/keys').expect(200);
  });

  test('the last two management keys revoking each other at the same moment: one succeeds, one enabled key is left', async () => {
    const t = await freshOrg();
    const second = await addManagementKey(t);
    const first = hashSecret(t.mgmtKey);
    const results = await Promise.all([
      as(t, t.mgmtKey).delete(`/keys/${second.hash}`),
      as(t, second.secret).patch(`/keys/${first}`, { disabled: true }),
    ]);
    // The loser is refused by the check (409), or, where the database runs one statement at a time
    // (PGlite), already at authentication because its key is gone (401).
    const [won, lost] = results.map((r) => r.status).sort();
    expect(won).toBe(200);
    expect([401, 409]).toContain(lost);
    const left = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1 AND is_management AND deleted_at IS NULL AND NOT disabled',
      [t.orgId],
    );
    expect(left[0]!.n).toBe(1);
  });

  test('rotating (even the last) management key: a new secret with the same name and workspace, the old one revoked at once', async () => {
    const t = await freshOrg();
    const old = hashSecret(t.mgmtKey);
    const res = await as(t, t.mgmtKey).post(`/keys/${old}/rotate`);
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^sk-sy-v1-[0-9a-f]{64}$/);
    expect(res.body.data).toMatchObject({
      hash: hashSecret(res.body.key),
      disabled: false,
      workspace_id: t.defaultWorkspaceId,
    });
    expect(res.body.revoked).toBe(old);
    expect((await as(t, t.mgmtKey).get('/keys')).body.error).toEqual({ code: 401, message: 'Invalid API key' });
    const fresh = as(t, res.body.key as string);
    await fresh.get('/keys').expect(200);
    expect((await fresh.get('/key').expect(200)).body.data.is_management_key).toBe(true);
    await fresh.get(`/keys/${old}`).expect(404);
    // The old hash names nothing any more.
    expect((await fresh.post(`/keys/${old}/rotate`)).status).toBe(404);
  });

  test('rotate is for enabled management keys: an API key is 400, a disabled management key 409, an unknown hash 404', async () => {
    const t = await freshOrg();
    const { hash, secret } = await createInferenceKey(t);
    const res = await as(t, t.mgmtKey).post(`/keys/${hash}/rotate`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 400,
      message: 'Invalid request parameters',
      metadata: { detail: expect.stringMatching(/management keys/) },
    });
    await as(t, secret).get('/key').expect(200);
    expect((await as(t, t.mgmtKey).post(`/keys/${'d'.repeat(64)}/rotate`)).body).toEqual({
      error: { code: 404, message: 'Resource not found' },
    });
    // A disabled management key stays out of service: no new secret is minted for it.
    const spare = await addManagementKey(t);
    await as(t, t.mgmtKey).patch(`/keys/${spare.hash}`, { disabled: true }).expect(200);
    const disabled = await as(t, t.mgmtKey).post(`/keys/${spare.hash}/rotate`);
    expect([disabled.status, disabled.body.error.message]).toEqual([
      409,
      expect.stringMatching(/disabled: enable it first/),
    ]);
    const count = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1 AND is_management AND deleted_at IS NULL',
      [t.orgId],
    );
    expect(count[0]!.n).toBe(2);
    expect((await as(t, secret).post(`/keys/${hash}/rotate`)).status).toBe(403);
  });

  test("another organization's management key cannot see, change, delete or rotate this one's management keys", async () => {
    const t = await freshOrg();
    const second = await addManagementKey(t);
    const foreign = as(gw, gw.mgmtKey);
    for (const target of [hashSecret(t.mgmtKey), second.hash]) {
      await foreign.get(`/keys/${target}`).expect(404);
      await foreign.patch(`/keys/${target}`, { disabled: true }).expect(404);
      await foreign.delete(`/keys/${target}`).expect(404);
      await foreign.post(`/keys/${target}/rotate`).expect(404);
    }
    await as(t, t.mgmtKey).get('/keys').expect(200);
    await as(t, second.secret).get('/keys').expect(200);
  });

  test('disabling a management key ends its dashboard sessions for good: re-enabling it does not revive them', async () => {
    const t = await freshOrg();
    const second = await addManagementKey(t);
    const cookie = await signInCookie(t, second.secret);
    await request(t.app).get('/api/v1/keys').set('Cookie', cookie).expect(200);

    await as(t, t.mgmtKey).patch(`/keys/${second.hash}`, { disabled: true }).expect(200);
    expect((await request(t.app).get('/api/v1/keys').set('Cookie', cookie)).status).toBe(401);
    await as(t, t.mgmtKey).patch(`/keys/${second.hash}`, { disabled: false }).expect(200);

    const replayed = await request(t.app).get('/api/v1/keys').set('Cookie', cookie);
    expect(replayed.status).toBe(401);
    expect(replayed.body.error.message).toBe('The dashboard session has ended; sign in again');
    expect((await request(t.app).get('/dashboard/api/session').set('Cookie', cookie)).status).toBe(401);
    // The key itself works again, and signs in anew.
    await as(t, second.secret).get('/keys').expect(200);
    await signInCookie(t, second.secret);
  });

  test("rotating a management key ends the old key's dashboard sessions", async () => {
    const t = await freshOrg();
    const cookie = await signInCookie(t, t.mgmtKey);
    await as(t, t.mgmtKey)
      .post(`/keys/${hashSecret(t.mgmtKey)}/rotate`)
      .expect(201);
    expect((await request(t.app).get('/api/v1/keys').set('Cookie', cookie)).status).toBe(401);
    expect((await request(t.app).get('/dashboard/api/session').set('Cookie', cookie)).status).toBe(401);
  });
});
