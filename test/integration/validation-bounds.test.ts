/**
 * Validation answers stay small and never fail, whatever the body under the size limit (issue 33
 * items 2 and 3): a 40,000-item `input` or a 130,000-item `user_ids` once overflowed the call
 * stack (500), and a 60 KB body produced a 5 MB error list. Now at most 20 problems are listed,
 * the rest counted, and a large body stops at its first problem.
 */
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, createInferenceKey, openTestGateway, type TestGateway } from '../helpers/gateway';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

describe.each(DATABASES)('validation bounds on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let apiKey: string;

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind));
    apiKey = (await createInferenceKey(gw)).secret;
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  const send = (path: string, secret: string, body: string) =>
    request(gw.app).post(path).set('Authorization', bearer(secret)).set('Content-Type', 'application/json').send(body);

  /** Every answer: a 400 envelope with the spec's message, at most 20 listed problems, a few KB at most. */
  function expectSmall400(res: request.Response) {
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 400, message: 'Invalid request parameters' });
    expect(res.body.error.metadata.errors.length).toBeGreaterThan(0);
    expect(res.body.error.metadata.errors.length).toBeLessThanOrEqual(20);
    expect(res.text.length).toBeLessThan(8192);
  }

  test.each([
    [
      'POST /embeddings, 40,000 empty objects',
      '/api/v1/embeddings',
      'api',
      `{"model":"openai/text-embedding-3-small","input":[${Array(40000).fill('{}').join(',')}]}`,
    ],
    [
      'POST /embeddings, 60 KB of wrong items',
      '/api/v1/embeddings',
      'api',
      `{"model":"m","input":[${Array(20000).fill('true').join(',')}]}`,
    ],
    [
      'members/add, 130,000 numbers',
      '/api/v1/workspaces/default/members/add',
      'mgmt',
      `{"user_ids":[${Array(130000).fill('0').join(',')}]}`,
    ],
    [
      'members/add, 100,000 NUL strings',
      '/api/v1/workspaces/default/members/add',
      'mgmt',
      `{"user_ids":[${Array(100000).fill('"\\u0000"').join(',')}]}`,
    ],
    [
      'POST /keys, 30,000 unknown properties',
      '/api/v1/keys',
      'mgmt',
      `{"name":"x",${Array.from({ length: 30000 }, (_, i) => `"p${i}":1`).join(',')}}`,
    ],
    ['POST /keys, one 500 KB property name', '/api/v1/keys', 'mgmt', `{"name":"x","${'k'.repeat(500_000)}":1}`],
  ])('%s → small 400', async (_label, path, who, body) => {
    const res = await send(path, who === 'api' ? apiKey : gw.mgmtKey, body);
    expectSmall400(res);
  });

  test('a small body lists its problems (up to 20) and counts the rest', async () => {
    const body = `{"name":"x",${Array.from({ length: 30 }, (_, i) => `"p${i}":1`).join(',')}}`;
    const res = await send('/api/v1/keys', gw.mgmtKey, body);
    expectSmall400(res);
    expect(res.body.error.metadata.errors).toHaveLength(20);
    expect(res.body.error.metadata.more_errors).toBe(10);
    expect(res.body.error.metadata.errors[0]).toEqual({ path: 'body.p0', message: 'is not allowed' });
  });

  test('a large body reports its first problem and says validation stopped there', async () => {
    const res = await send(
      '/api/v1/workspaces/default/members/add',
      gw.mgmtKey,
      `{"user_ids":[${Array(130000).fill('0').join(',')}]}`,
    );
    expectSmall400(res);
    expect(res.body.error.metadata.stopped_early).toBe(true);
    expect(res.body.error.metadata.errors[0].path).toBe('body.user_ids');
  });

  test('the gateway still answers afterwards', async () => {
    await request(gw.app).get('/readyz').expect(200);
    await request(gw.app).get('/api/v1/embeddings/models').set('Authorization', bearer(apiKey)).expect(200);
  });
});
