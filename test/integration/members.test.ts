/**
 * Workspace members through HTTP on every database kind: bulk add (all-or-nothing, role from
 * the organization, idempotent, `added_count` = created or changed), bulk remove (refused for
 * key creators and the default workspace), paged listing (the default workspace lists the whole
 * organization), validation limits, slug addressing and tenant isolation.
 */
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, openTestGateway, type TestGateway } from '../helpers/gateway';
import { upsertOrgMember } from '../../src/orgs/repository';
import type { Database } from '../../src/store/db';
import { expectSchema } from '../helpers/expect-schema';
import type { Kv } from '../../src/kv/kv';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(DATABASES)('workspace members on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let other: TestGateway;
  let wsId: string;

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind));
    other = await createTestGateway(db, kv);
    await upsertOrgMember(db, gw.orgId, 'user_admin', 'admin');
    await upsertOrgMember(db, gw.orgId, 'user_a', 'member');
    await upsertOrgMember(db, gw.orgId, 'user_b', 'member');
    await upsertOrgMember(db, other.orgId, 'user_stranger', 'member');
    wsId = (await post('/workspaces', { name: 'Team', slug: 'team' }).expect(201)).body.data.id;
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  function post(path: string, body: unknown, g: TestGateway = gw) {
    return request(g.app)
      .post(`/api/v1${path}`)
      .set('Authorization', bearer(g.mgmtKey))
      .send(body as object);
  }
  const get = (path: string, g: TestGateway = gw) =>
    request(g.app).get(`/api/v1${path}`).set('Authorization', bearer(g.mgmtKey));

  test('add → 200 with added_count and member objects carrying the organization role', async () => {
    const res = await post('/workspaces/team/members/add', { user_ids: ['user_admin', 'user_a'] });
    expect(res.status).toBe(200);
    expect(res.body.added_count).toBe(2);
    expect(res.body.data).toHaveLength(2);
    const byUser = Object.fromEntries(res.body.data.map((m: { user_id: string }) => [m.user_id, m]));
    expect(byUser.user_admin).toMatchObject({ workspace_id: wsId, role: 'admin' });
    expect(byUser.user_a).toMatchObject({ workspace_id: wsId, role: 'member' });
    for (const m of res.body.data) {
      expect(Object.keys(m).sort()).toEqual(['created_at', 'id', 'role', 'user_id', 'workspace_id']);
      expect(m.id).toMatch(UUID);
      expect(new Date(m.created_at).toISOString()).toBe(m.created_at);
    }
  });

  test('adding existing members is idempotent (added_count 0, same ids); a changed org role is synced and counted', async () => {
    const first = await post(`/workspaces/${wsId}/members/add`, { user_ids: ['user_a'] }).expect(200);
    expect(first.body.added_count).toBe(0);
    const again = await post(`/workspaces/${wsId}/members/add`, { user_ids: ['user_a', 'user_a'] }).expect(200);
    expect(again.body.added_count).toBe(0);
    expect(again.body.data).toEqual(first.body.data);
    await upsertOrgMember(db, gw.orgId, 'user_a', 'admin');
    const promoted = await post('/workspaces/team/members/add', { user_ids: ['user_a'] }).expect(200);
    expect(promoted.body.added_count).toBe(1);
    expect(promoted.body.data[0]).toMatchObject({ user_id: 'user_a', role: 'admin', id: first.body.data[0].id });
    await upsertOrgMember(db, gw.orgId, 'user_a', 'member');
    await post('/workspaces/team/members/add', { user_ids: ['user_a'] }).expect(200);
  });

  test('a role changed in the organization shows at once in every member list, without re-adding', async () => {
    const t = await createTestGateway(db, kv); // its own organization: the member counts above stay put
    await upsertOrgMember(db, t.orgId, 'user_demoted', 'admin');
    await upsertOrgMember(db, t.orgId, 'user_promoted', 'member');
    const ws = (await post('/workspaces', { name: 'Roles', slug: 'roles' }, t).expect(201)).body.data;
    const users = { user_ids: ['user_demoted', 'user_promoted'] };
    const added = await post('/workspaces/roles/members/add', users, t).expect(200);
    const roleIn = (body: { data: Array<{ user_id: string; role: string }> }) =>
      Object.fromEntries(body.data.map((m) => [m.user_id, m.role]));
    expect(roleIn(added.body)).toEqual({ user_demoted: 'admin', user_promoted: 'member' });

    // What the CLI's `users add <id> --role …` does for an existing member of the organization.
    await upsertOrgMember(db, t.orgId, 'user_demoted', 'member');
    await upsertOrgMember(db, t.orgId, 'user_promoted', 'admin');
    const listed = await get(`/workspaces/${ws.id}/members`, t).expect(200);
    expect(roleIn(listed.body)).toEqual({ user_demoted: 'member', user_promoted: 'admin' });
    expect(listed.body.total_count).toBe(2);
    expect(roleIn((await get('/workspaces/default/members', t).expect(200)).body)).toEqual({
      user_demoted: 'member',
      user_promoted: 'admin',
    });
    // Adding again reports the same current roles on the same memberships.
    const again = await post('/workspaces/roles/members/add', users, t).expect(200);
    expect(roleIn(again.body)).toEqual({ user_demoted: 'member', user_promoted: 'admin' });
    const ids = (body: { data: Array<{ id: string }> }) => body.data.map((m) => m.id).sort();
    expect(ids(again.body)).toEqual(ids(added.body));
  });

  test('a user outside the organization → 400 naming them, and nothing is added', async () => {
    const res = await post('/workspaces/team/members/add', { user_ids: ['user_b', 'user_stranger', 'user_ghost'] });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Invalid request parameters');
    expect(res.body.error.metadata.detail).toContain('user_stranger');
    expect(res.body.error.metadata.detail).toContain('user_ghost');
    expect(res.body.error.metadata.detail).not.toContain('user_b');
    const list = await get('/workspaces/team/members').expect(200);
    expectSchema(list.body, 'members.list.response');
    expect(list.body.data.map((m: { user_id: string }) => m.user_id)).not.toContain('user_b');
  });

  test('user_ids must hold 1 to 100 strings → else 400', async () => {
    await post('/workspaces/team/members/add', { user_ids: [] }).expect(400);
    await post('/workspaces/team/members/add', {}).expect(400);
    await post('/workspaces/team/members/add', { user_ids: 'user_a' }).expect(400);
    await post('/workspaces/team/members/add', { user_ids: [1] }).expect(400);
    await post('/workspaces/team/members/add', { user_ids: [''] }).expect(400);
    const tooMany = Array.from({ length: 101 }, (_, i) => `user_${i}`);
    await post('/workspaces/team/members/add', { user_ids: tooMany }).expect(400);
    await post('/workspaces/team/members/remove', { user_ids: tooMany }).expect(400);
    // 100 is allowed (and all unknown → 400 for membership, not for size).
    const res = await post('/workspaces/team/members/add', { user_ids: tooMany.slice(0, 100) });
    expect(res.status).toBe(400);
    expect(res.body.error.metadata.detail).toContain('not members of the organization');
  });

  test('unknown workspace → 404; inference key → 403', async () => {
    await post('/workspaces/nope/members/add', { user_ids: ['user_a'] }).expect(404);
    await post('/workspaces/nope/members/remove', { user_ids: ['user_a'] }).expect(404);
    await get('/workspaces/nope/members').expect(404);
    const key = await createInferenceKey(gw);
    const res = await request(gw.app)
      .post('/api/v1/workspaces/team/members/add')
      .set('Authorization', bearer(key.secret))
      .send({ user_ids: ['user_a'] });
    expect(res.status).toBe(403);
  });

  test('list pages with total_count; limit max 100', async () => {
    const ws = (await post('/workspaces', { name: 'Paged', slug: 'paged' }).expect(201)).body.data;
    await post(`/workspaces/${ws.id}/members/add`, { user_ids: ['user_admin', 'user_a', 'user_b'] }).expect(200);
    const all = await get('/workspaces/paged/members').expect(200);
    expect(all.body.total_count).toBe(3);
    expect(all.body.data).toHaveLength(3);
    const page = await get('/workspaces/paged/members?offset=1&limit=1').expect(200);
    expect(page.body.total_count).toBe(3);
    expect(page.body.data).toEqual([all.body.data[1]]);
    await get('/workspaces/paged/members?limit=101').expect(400);
  });

  test('the default workspace lists every organization member with their org role', async () => {
    const res = await get('/workspaces/default/members').expect(200);
    expect(res.body.total_count).toBe(3);
    const roles = Object.fromEntries(res.body.data.map((m: { user_id: string; role: string }) => [m.user_id, m.role]));
    expect(roles).toEqual({ user_admin: 'admin', user_a: 'member', user_b: 'member' });
    for (const m of res.body.data) {
      expect(m.workspace_id).toBe(gw.defaultWorkspaceId);
      expect(m.id).toMatch(UUID);
    }
    const again = await get(`/workspaces/${gw.defaultWorkspaceId}/members`).expect(200);
    expect(again.body.data).toEqual(res.body.data); // stable ids
  });

  test('remove → removed_count; non-members count 0; default workspace → 400', async () => {
    const ws = (await post('/workspaces', { name: 'Rm', slug: 'rm' }).expect(201)).body.data;
    await post('/workspaces/rm/members/add', { user_ids: ['user_a', 'user_b'] }).expect(200);
    const res = await post(`/workspaces/${ws.id}/members/remove`, { user_ids: ['user_a', 'user_ghost'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ removed_count: 1 });
    const again = await post('/workspaces/rm/members/remove', { user_ids: ['user_a'] }).expect(200);
    expect(again.body).toEqual({ removed_count: 0 });
    const list = await get('/workspaces/rm/members').expect(200);
    expect(list.body.data.map((m: { user_id: string }) => m.user_id)).toEqual(['user_b']);
    const dflt = await post('/workspaces/default/members/remove', { user_ids: ['user_a'] });
    expect(dflt.status).toBe(400);
    expect(dflt.body.error.metadata.detail).toMatch(/default workspace/);
  });

  test('a member who created a live key in the workspace cannot be removed (400 naming them) until it is deleted', async () => {
    await post('/workspaces', { name: 'Keys', slug: 'keyed' }).expect(201);
    await post('/workspaces/keyed/members/add', { user_ids: ['user_a', 'user_b'] }).expect(200);
    const key = await createInferenceKey(gw, { name: 'a-key', workspace_id: 'keyed', creator_user_id: 'user_a' });
    const res = await post('/workspaces/keyed/members/remove', { user_ids: ['user_a', 'user_b'] });
    expect(res.status).toBe(400);
    expect(res.body.error.metadata.detail).toContain('user_a');
    expect(res.body.error.metadata.detail).not.toContain('user_b');
    expect((await get('/workspaces/keyed/members').expect(200)).body.total_count).toBe(2);
    await request(gw.app).delete(`/api/v1/keys/${key.hash}`).set('Authorization', bearer(gw.mgmtKey)).expect(200);
    const ok = await post('/workspaces/keyed/members/remove', { user_ids: ['user_a', 'user_b'] }).expect(200);
    expect(ok.body.removed_count).toBe(2);
  });

  test("another organization's workspace → 404; its members are not ours to add", async () => {
    const theirs = (await post('/workspaces', { name: 'Theirs', slug: 'theirs' }, other).expect(201)).body.data;
    await post(`/workspaces/${theirs.id}/members/add`, { user_ids: ['user_a'] }).expect(404);
    await post('/workspaces/theirs/members/remove', { user_ids: ['user_a'] }).expect(404);
    await get(`/workspaces/${theirs.id}/members`).expect(404);
    const res = await post('/workspaces/theirs/members/add', { user_ids: ['user_a'] }, other);
    expect(res.status).toBe(400);
    expect(res.body.error.metadata.detail).toContain('user_a');
  });
});
