/**
 * Deleting a workspace while things are being added to it, through HTTP on every database kind
 * (the race needs real Postgres to interleave; PGlite runs one transaction at a time). Each
 * round fires the delete together with key creations or uploads into that workspace. Whoever
 * commits first, the outcome must be one of the two serial ones, and nothing may end up live in
 * a deleted workspace: no key (it would still authenticate, with no budget left to stop it) and
 * no file (stored but unreachable).
 */
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { bearer, openTestGateway, type TestGateway } from '../helpers/gateway';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

const ROUNDS = 25;
const RACERS = 3;

describe.each(DATABASES)('workspace delete racing creations on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;

  beforeAll(async () => {
    // Every racer holds an upload slot at once: the per-organization cap must not be what refuses them.
    ({ db, kv, gw } = await openTestGateway(dbKind, {
      files: { maxConcurrentUploads: 16, maxConcurrentUploadsPerOrg: 12 },
    }));
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  const auth = () => bearer(gw.mgmtKey);
  const newWorkspace = async (slug: string): Promise<string> =>
    (
      await request(gw.app)
        .post('/api/v1/workspaces')
        .set('Authorization', auth())
        .send({ name: slug, slug })
        .expect(201)
    ).body.data.id;
  const deleteWorkspace = (id: string) =>
    request(gw.app).delete(`/api/v1/workspaces/${id}`).set('Authorization', auth());

  test('POST /keys vs DELETE /workspaces/{id}: the key lands and the delete is refused (409), or the delete wins and the key is 404', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const slug = `key-race-${round}`;
      const id = await newWorkspace(slug);
      const [deleted, ...created] = await Promise.all([
        deleteWorkspace(id),
        // By UUID and by slug: both lookups must take the lock.
        ...Array.from({ length: RACERS }, (_, i) =>
          request(gw.app)
            .post('/api/v1/keys')
            .set('Authorization', auth())
            .send({ name: `k${i}`, workspace_id: i % 2 === 0 ? id : slug }),
        ),
      ]);
      const statuses = created.map((r) => r.status);
      if (deleted.status === 200) {
        expect(statuses).toEqual(Array(RACERS).fill(404));
        for (const r of created) expect(r.body).toEqual({ error: { code: 404, message: 'Resource not found' } });
      } else {
        expect(deleted.status).toBe(409);
        expect(statuses).toEqual(Array(RACERS).fill(201));
        // The delete counts the keys committed before it took the row lock: at least the one
        // that made it refuse; racers that had not yet share-locked the row wait and land after.
        const counted = deleted.body.error.metadata.active_key_count as number;
        expect(counted).toBeGreaterThanOrEqual(1);
        expect(counted).toBeLessThanOrEqual(RACERS);
      }
    }
    const orphans = await db.query(
      `SELECT k.hash FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
        WHERE k.deleted_at IS NULL AND w.deleted_at IS NOT NULL`,
    );
    expect(orphans).toEqual([]);
  });

  test('POST /files vs DELETE /workspaces/{id}: the upload is 404, or it lands and is deleted with the workspace', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const id = await newWorkspace(`file-race-${round}`);
      const [deleted, ...uploads] = await Promise.all([
        deleteWorkspace(id),
        ...Array.from({ length: RACERS }, (_, i) =>
          request(gw.app)
            .post('/api/v1/files')
            .query({ workspace_id: id })
            .set('Authorization', auth())
            .attach('file', Buffer.from(`round ${round}, upload ${i}\n`), 'race.txt'),
        ),
      ]);
      expect(deleted.status).toBe(200);
      for (const r of uploads) expect([200, 404]).toContain(r.status);
    }
    const orphanFiles = await db.query(
      'SELECT f.id FROM files f JOIN workspaces w ON w.id = f.workspace_id WHERE w.deleted_at IS NOT NULL',
    );
    expect(orphanFiles).toEqual([]);
    const orphanChunks = await db.query(
      'SELECT c.file_id FROM file_chunks c LEFT JOIN files f ON f.id = c.file_id WHERE f.id IS NULL',
    );
    expect(orphanChunks).toEqual([]);
  });
});
