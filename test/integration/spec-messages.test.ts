/**
 * The spec's messages and statuses (issue 33 item 6): every 400 says `Invalid request
 * parameters` with its details in `metadata`; a key or file id that cannot exist is a 404 like
 * an unknown one (the spec lists 404, not 400, for these routes). The 402's wording is covered
 * in budgets-enforcement.test.ts.
 */
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, createInferenceKey, openTestGateway, type TestGateway } from '../helpers/gateway';
import { upsertOrgMember } from '../../src/orgs/repository';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

describe.each(DATABASES)('spec messages on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let apiKey: string;

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind));
    apiKey = (await createInferenceKey(gw)).secret;
    await upsertOrgMember(db, gw.orgId, 'user_a', 'member');
    await request(gw.app)
      .post('/api/v1/workspaces')
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ name: 'T', slug: 'team' })
      .expect(201);
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  const mgmt = (method: 'get' | 'post' | 'put' | 'delete' | 'patch', path: string) =>
    request(gw.app)[method](`/api/v1${path}`).set('Authorization', bearer(gw.mgmtKey));

  test.each([
    [
      'members/add of a stranger',
      () => mgmt('post', '/workspaces/team/members/add').send({ user_ids: ['user_stranger'] }),
      /user_stranger/,
    ],
    [
      'members/remove from the default workspace',
      () => mgmt('post', '/workspaces/default/members/remove').send({ user_ids: ['user_a'] }),
      /default workspace/,
    ],
    [
      'a budget breaking the ordering rule',
      async () => {
        await mgmt('put', '/workspaces/team/budgets/weekly').send({ limit_usd: 5 }).expect(200);
        return mgmt('put', '/workspaces/team/budgets/daily').send({ limit_usd: 6 });
      },
      /daily budget .* must be lower than the weekly budget/,
    ],
    [
      'GET /files?before_id',
      () => request(gw.app).get('/api/v1/files?before_id=x').set('Authorization', bearer(apiKey)),
      /forward only/,
    ],
    [
      'a provider file operation',
      () => request(gw.app).get('/api/v1/files?provider=openai').set('Authorization', bearer(apiKey)),
      /provider/,
    ],
  ])('%s → 400 "Invalid request parameters", details in metadata', async (_label, call, detail) => {
    const res = await call();
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Invalid request parameters');
    expect(res.body.error.metadata.detail).toMatch(detail);
    expect(res.body.error.metadata.errors.length).toBeGreaterThan(0);
  });

  test.each([
    ['DELETE /keys/{malformed}', 'delete', '/keys/not-a-hash'],
    ['GET /keys/{malformed}', 'get', '/keys/zz'],
    ['PATCH /keys/{malformed}', 'patch', `/keys/${'x'.repeat(64)}`],
    ['DELETE /keys/{unknown}', 'delete', `/keys/${'c'.repeat(64)}`],
  ] as const)('%s → 404 Resource not found', async (_label, method, path) => {
    const res = await mgmt(method, path).send(method === 'patch' ? { name: 'n' } : undefined);
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: 404, message: 'Resource not found' });
  });

  test.each(
    ['file-x', 'not%20a%20file', '..%2F..', 'x'.repeat(3000), '%00', '%E0%A4%A', 'file-000000000000000000000000'].map(
      (id) => [id.slice(0, 30), id],
    ),
  )('DELETE /files/%s → 404', async (_label, id) => {
    const res = await request(gw.app).delete(`/api/v1/files/${id}`).set('Authorization', bearer(apiKey));
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: 404, message: 'Resource not found' });
  });
});
