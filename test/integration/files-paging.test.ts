/**
 * `GET /files` paging over sequence numbers that cross a digit boundary, with two organizations'
 * uploads interleaved (issue 33 item 1: a text sort put 12 before 3 while the cursor filtered
 * numerically, so a file could never be listed), and the sealed cursor (item 9): it shows no
 * global counter, and a cursor of one workspace is refused in another.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DATABASES, KVS } from '../helpers/services';
import { bearer, createTestGateway, type TestGateway } from '../helpers/gateway';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';
import { insertWorkspace } from '../../src/workspaces/repository';

describe.each(DATABASES)('GET /files paging on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let a: TestGateway;
  let b: TestGateway;
  const filesOfA: string[] = [];

  const upload = async (g: TestGateway, n: number) => {
    const res = await request(g.app)
      .post('/api/v1/files')
      .set('Authorization', bearer(g.mgmtKey))
      .attach('file', Buffer.from(`file ${n} of ${g.orgId}\n`), { filename: `f${n}.txt`, contentType: 'text/plain' });
    expect(res.status).toBe(200);
    return res.body.id as string;
  };
  const list = (g: TestGateway, query: Record<string, string | number>) =>
    request(g.app).get('/api/v1/files').query(query).set('Authorization', bearer(g.mgmtKey));

  beforeAll(async () => {
    db = await dbKind.open();
    kv = await KVS[0]!.open();
    a = await createTestGateway(db, kv);
    b = await createTestGateway(db, kv);
    // Sequence numbers: B gets 1..2, A gets 3, B gets 4..11, A gets 12..14 (as text, "12" < "3").
    for (let i = 1; i <= 2; i++) await upload(b, i);
    filesOfA.push(await upload(a, 0));
    for (let i = 3; i <= 10; i++) await upload(b, i);
    for (let i = 11; i <= 13; i++) filesOfA.push(await upload(a, i));
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  test('limit=1 pages through every file of the workspace once, in upload order', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await list(a, { limit: 1, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((f: { id: string }) => f.id));
      if (!res.body.has_more) break;
      cursor = res.body.cursor;
    }
    expect(seen).toEqual(filesOfA);
  });

  test('one page lists them in upload order, not text order of the sequence', async () => {
    const res = await list(a, { limit: 100 });
    expect(res.body.data.map((f: { id: string }) => f.id)).toEqual(filesOfA);
  });

  test('the cursor is opaque: no sequence number in it, and another workspace cannot use it', async () => {
    const first = await list(a, { limit: 1 });
    const cursor = first.body.cursor as string;
    expect(cursor).toMatch(/^f2\.[A-Za-z0-9_-]{22}$/);
    // Consecutive positions would share their first seven bytes in the clear (a big-endian counter);
    // sealed, two consecutive cursors have nothing in common but chance (2^-56).
    const second = await list(a, { limit: 1, cursor });
    const [one, two] = [cursor, second.body.cursor as string].map((c) => Buffer.from(c.slice(3), 'base64url'));
    expect(two).toHaveLength(16);
    expect(one!.subarray(0, 7).equals(two!.subarray(0, 7))).toBe(false);
    // The same position in another organization, and in another workspace of the same one → 400.
    const other = await list(b, { cursor });
    expect(other.status).toBe(400);
    expect(other.body.error.message).toBe('Invalid request parameters');
    const ws2 = await insertWorkspace(db, { id: randomUUID(), orgId: a.orgId, name: 'Second', slug: 'second' });
    const sameOrg = await list(a, { cursor, workspace_id: ws2.id });
    expect(sameOrg.status).toBe(400);
    // A flipped character of a sealed cursor is refused, never read as another position.
    const flipped = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;
    expect((await list(a, { cursor: flipped })).status).toBe(400);
    // The cursor still works where it was issued.
    const next = await list(a, { cursor, limit: 1 });
    expect(next.body.data[0].id).toBe(filesOfA[1]);
  });
});
