/**
 * Slow uploads cannot block other tenants (issue 33 item 4): over real sockets on 127.0.0.1, one
 * organization's dribbling uploads hold at most `files.maxConcurrentUploadsPerOrg` slots (more get
 * 429 at once), another organization still uploads meanwhile, and every slow upload is cut with a
 * 408 envelope (nothing stored, slot freed): after `uploadIdleTimeoutMs` of silence, or at
 * `uploadDeadlineMs` however steadily it dribbles. Short timeouts are configured; the test only
 * asserts outcomes, never durations.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { DATABASES, KVS } from '../helpers/services';
import { filePartHead } from '../helpers/multipart-upload';
import { bearer, createTestGateway, type TestGateway } from '../helpers/gateway';
import { provisionOrg } from '../../src/orgs/provision';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';
import { until } from '../helpers/eventually';

interface Answer {
  status: number;
  body: { error?: { code: number; message: string; metadata?: Record<string, unknown> } };
}

/** A multipart upload whose bytes the test sends; `answer` settles with the response (or status 0 if the connection drops first). */
function openUpload(port: number, secret: string) {
  const req = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/v1/files',
    headers: {
      authorization: bearer(secret),
      'content-type': 'multipart/form-data; boundary=b0undary',
      'content-length': 100_000,
    },
  });
  const answer = new Promise<Answer>((resolve) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}') }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body: {} }));
    });
    req.on('error', () => resolve({ status: 0, body: {} }));
  });
  req.write(filePartHead('slow.txt'));
  req.write('a few words');
  return { req, answer };
}

describe.each(DATABASES)('slow uploads on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let otherSecret: string;
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    db = await dbKind.open();
    kv = await KVS[0]!.open();
    gw = await createTestGateway(db, kv, {
      files: {
        maxConcurrentUploads: 3,
        maxConcurrentUploadsPerOrg: 2,
        uploadIdleTimeoutMs: 400,
        uploadDeadlineMs: 2500,
      },
    });
    otherSecret = (await db.transaction((tx) => provisionOrg(tx, 'Other Org'))).secret;
    server = http.createServer(gw.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await kv.close();
    await db.close();
  });

  const receiving = async () =>
    (await gw.deps.metrics.fileUploadsInProgress.get()).values.find((v) => v.labels.stage === 'receiving')?.value;
  const files = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM files'))[0]!.n;
  const quickUpload = (secret: string) =>
    request(server)
      .post('/api/v1/files')
      .set('Authorization', bearer(secret))
      .attach('file', Buffer.from('quick file\n'), 'quick.txt');

  test('dribbling uploads of one organization: two slots at most, 429 beyond; another organization uploads; 408 at the deadline', async () => {
    const before = await files();
    const slow = [openUpload(port, gw.mgmtKey), openUpload(port, gw.mgmtKey)];
    // Keep both dribbling (well within the idle timeout) until they are answered.
    const dribble = setInterval(() => slow.forEach((u) => u.req.write('x')), 100);
    try {
      // Both hold their organization's slots (each is receiving) before the third one asks.
      await until('both slow uploads receiving', async () => (await receiving()) === 2);
      const third = openUpload(port, gw.mgmtKey);
      const refused = await third.answer;
      third.req.destroy();
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({
        code: 429,
        metadata: { reason: 'too many uploads in progress for this organization' },
      });

      const other = await quickUpload(otherSecret);
      expect(other.status).toBe(200);

      const answers = await Promise.all(slow.map((u) => u.answer));
      for (const a of answers) {
        expect(a.status).toBe(408);
        expect(a.body.error).toMatchObject({ code: 408, message: 'Operation timed out. Please try again later.' });
        expect(String(a.body.error?.metadata?.reason)).toMatch(/did not complete within 2500 ms/);
      }
    } finally {
      clearInterval(dribble);
      slow.forEach((u) => u.req.destroy());
    }
    expect(await files()).toBe(before + 1); // only the other organization's file
    // The slots are free again.
    expect((await quickUpload(gw.mgmtKey)).status).toBe(200);
  });

  test('an upload that goes silent → 408 after the idle timeout; nothing stored, slot freed', async () => {
    const before = await files();
    const silent = openUpload(port, gw.mgmtKey);
    const res = await silent.answer;
    silent.req.destroy();
    expect(res.status).toBe(408);
    expect(String(res.body.error?.metadata?.reason)).toMatch(/sent nothing for 400 ms/);
    expect(await files()).toBe(before);
    const ok = await Promise.all([quickUpload(gw.mgmtKey), quickUpload(gw.mgmtKey)]);
    expect(ok.map((r) => r.status)).toEqual([200, 200]);
  });
});
