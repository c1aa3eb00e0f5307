/**
 * Membership identity (issue 33 item 8): every member id, the default workspace's included, is an
 * RFC 9562 UUID (version 1-8, variant 10) and stable; adding a user who is already a member
 * counts 0 and returns the existing membership, never a new id or `created_at`.
 */
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, openTestGateway, type TestGateway } from '../helpers/gateway';
import { upsertOrgMember } from '../../src/orgs/repository';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

/** RFC 9562: version nibble 1-8, variant bits 10. */
const RFC_9562 = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const USERS = ['user_one', 'user_two', 'user_three', 'user_four', 'user_five', 'user_six'];

describe.each(DATABASES)('membership identity on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind));
    for (const u of USERS) await upsertOrgMember(db, gw.orgId, u, u === 'user_one' ? 'admin' : 'member');
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  const call = (method: 'get' | 'post', path: string, body?: object) =>
    request(gw.app)[method](`/api/v1${path}`).set('Authorization', bearer(gw.mgmtKey)).send(body);
  const byUser = (data: Array<{ user_id: string }>) => Object.fromEntries(data.map((m) => [m.user_id, m]));

  test('the default workspace lists RFC 9562 UUIDs, the same on every listing', async () => {
    const first = (await call('get', '/workspaces/default/members').expect(200)).body.data;
    expect(first.length).toBeGreaterThanOrEqual(USERS.length);
    for (const m of first) expect(m.id).toMatch(RFC_9562);
    const second = (await call('get', `/workspaces/${gw.defaultWorkspaceId}/members?limit=100`).expect(200)).body.data;
    expect(second).toEqual(first);
  });

  test('adding members of the default workspace counts 0 and returns the listed memberships unchanged', async () => {
    const listed = byUser((await call('get', '/workspaces/default/members').expect(200)).body.data);
    const rowsBefore = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM workspace_members');
    const res = await call('post', '/workspaces/default/members/add', { user_ids: ['user_two', 'user_three'] }).expect(
      200,
    );
    expect(res.body.added_count).toBe(0);
    expect(res.body.data).toHaveLength(2);
    for (const m of res.body.data) expect(m).toEqual(listed[m.user_id]);
    const again = await call('post', '/workspaces/default/members/add', { user_ids: ['user_two'] }).expect(200);
    expect(again.body).toEqual({ added_count: 0, data: [listed.user_two] });
    expect(await db.query<{ n: number }>('SELECT count(*)::int AS n FROM workspace_members')).toEqual(rowsBefore);
  });

  test('in another workspace: ids are RFC 9562 UUIDs, a repeated add counts 0 with the same id and created_at', async () => {
    await call('post', '/workspaces', { name: 'Team', slug: 'team' }).expect(201);
    const first = await call('post', '/workspaces/team/members/add', { user_ids: ['user_four', 'user_five'] }).expect(
      200,
    );
    expect(first.body.added_count).toBe(2);
    for (const m of first.body.data) expect(m.id).toMatch(RFC_9562);
    const again = await call('post', '/workspaces/team/members/add', { user_ids: ['user_five', 'user_four'] }).expect(
      200,
    );
    expect(again.body.added_count).toBe(0);
    expect(byUser(again.body.data)).toEqual(byUser(first.body.data));
  });
});
