/**
 * The files resource through HTTP, against every database kind: upload (streamed, sniffed,
 * size-limited, all-or-nothing), the File wire shape, download byte for byte across many
 * chunks, cursor pagination, delete, and every kind of bad input answered with a 4xx envelope
 * that leaves nothing stored.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { DATABASES } from '../helpers/services';
import { filePartHead, openMultipartUpload } from '../helpers/multipart-upload';
import { bearer, createInferenceKey, createTestGateway, openTestGateway, type TestGateway } from '../helpers/gateway';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';
import { eventually } from '../helpers/eventually';

const FILE_FIELDS = ['_shape', 'id', 'type', 'filename', 'mime_type', 'size_bytes', 'created_at', 'downloadable'];

/** Collect a response body as raw bytes, whatever its Content-Type. */
function binary(res: unknown, cb: (err: Error | null, body: Buffer) => void): void {
  const stream = res as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => cb(null, Buffer.concat(chunks)));
}

const ascii = (s: string) => Buffer.from(s, 'latin1');

/** A minimal ZIP local file header for `name` (no data): enough for the Office sniffer. */
function zipEntry(name: string): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(Buffer.byteLength(name), 26);
  return Buffer.concat([header, ascii(name)]);
}

/** Sample files built here: [label, bytes, client file name, expected sniffed type]. */
const SAMPLES: Array<[string, Buffer, string, string]> = [
  ['PDF', ascii('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n'), 'doc.pdf', 'application/pdf'],
  [
    'PNG',
    Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)]),
    'a.png',
    'image/png',
  ],
  [
    'JPEG',
    Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), ascii('JFIF\0'), randomBytes(32)]),
    'a.jpg',
    'image/jpeg',
  ],
  ['GIF', Buffer.concat([ascii('GIF89a'), randomBytes(16)]), 'a.gif', 'image/gif'],
  [
    'WebP',
    Buffer.concat([ascii('RIFF'), Buffer.from([40, 0, 0, 0]), ascii('WEBPVP8 '), randomBytes(32)]),
    'a.webp',
    'image/webp',
  ],
  [
    'WAV',
    Buffer.concat([ascii('RIFF'), Buffer.from([40, 0, 0, 0]), ascii('WAVEfmt '), randomBytes(32)]),
    'a.wav',
    'audio/wav',
  ],
  ['MP3', Buffer.concat([ascii('ID3'), Buffer.from([4, 0, 0, 0, 0, 0, 0]), randomBytes(32)]), 'a.mp3', 'audio/mpeg'],
  ['FLAC', Buffer.concat([ascii('fLaC'), randomBytes(32)]), 'a.flac', 'audio/flac'],
  ['OGG', Buffer.concat([ascii('OggS'), randomBytes(32)]), 'a.ogg', 'audio/ogg'],
  [
    'DOCX',
    Buffer.concat([zipEntry('[Content_Types].xml'), zipEntry('_rels/.rels'), zipEntry('word/document.xml')]),
    'a.docx',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  ],
  [
    'XLSX',
    Buffer.concat([zipEntry('[Content_Types].xml'), zipEntry('xl/workbook.xml')]),
    'a.xlsx',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ],
  ['JSON', ascii('{\n  "name": "switchyard",\n  "tags": ["a", "b"]\n}\n'), 'data.json', 'application/json'],
  [
    'NDJSON',
    ascii('{"id":1,"text":"a"}\n{"id":2,"text":"b"}\n{"id":3,"text":"c"}\n'),
    'rows.jsonl',
    'application/x-ndjson',
  ],
  ['CSV', ascii('id,name,score\n1,alice,9.5\n2,"bob, jr",7\n'), 'table.csv', 'text/csv'],
  [
    'Markdown',
    Buffer.from('# Title\n\nSome **bold** text and a [link](https://example.com).\n\n- one\n- two\n'),
    'notes.md',
    'text/markdown',
  ],
  [
    'Markdown opening with a link',
    Buffer.from('[![build](https://ci.example/badge.svg)](https://ci.example)\n\n# Project\n\nSome text.\n'),
    'README',
    'text/markdown',
  ],
  [
    'JSON too long for the sniff window',
    Buffer.from(`[${Array.from({ length: 20_000 }, (_, i) => `{"n": ${i}}`).join(',\n')}]`),
    'big.json',
    'application/json',
  ],
  [
    'plain text',
    Buffer.from('Just a few words of plain text.\nNothing more — ünïcode is fine.\n'),
    'notes.txt',
    'text/plain',
  ],
];

describe.each(DATABASES)('files on $name', (dbKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let big: TestGateway;
  let small: TestGateway;
  let inference: string;

  beforeAll(async () => {
    ({ db, kv, gw } = await openTestGateway(dbKind));
    // Small chunks so a ~1.3 MB file spans many of them; and a tiny limit for the 413 cases.
    big = await createTestGateway(db, kv, { files: { chunkBytes: 64 * 1024, maxBytes: 4 * 1024 * 1024 } });
    small = await createTestGateway(db, kv, { files: { maxBytes: 4096 } });
    inference = (await createInferenceKey(gw)).secret;
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  const upload = (
    g: TestGateway,
    bytes: Buffer,
    filename = 'f.bin',
    secret = g.mgmtKey,
    contentType = 'application/octet-stream',
  ) =>
    request(g.app)
      .post('/api/v1/files')
      .set('Authorization', bearer(secret))
      .attach('file', bytes, { filename, contentType });

  const count = async (table: 'files' | 'file_chunks') =>
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;

  test('POST /files → 200 with exactly the File object', async () => {
    const bytes = SAMPLES[0]![1];
    const res = await upload(gw, bytes, 'report.pdf', inference);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...FILE_FIELDS].sort());
    expect(res.body).toMatchObject({
      _shape: 'openrouter',
      type: 'file',
      filename: 'report.pdf',
      mime_type: 'application/pdf',
      size_bytes: bytes.length,
      downloadable: true,
    });
    expect(res.body.id).toMatch(/^file-[0-9A-Za-z]{24}$/);
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);

    const got = await request(gw.app)
      .get(`/api/v1/files/${res.body.id}`)
      .set('Authorization', bearer(inference))
      .expect(200);
    expect(got.body).toEqual(res.body);
  });

  test.each(SAMPLES)('sniffs %s from its content', async (_label, bytes, filename, expected) => {
    // The client's claimed type is a lie on purpose: only the bytes count.
    const res = await upload(gw, bytes, filename, gw.mgmtKey, 'application/x-claimed-by-client');
    expect(res.status).toBe(200);
    expect(res.body.mime_type).toBe(expected);
  });

  test('content decides over the file name: PDF bytes named .txt are a PDF, JSON text named .md is JSON', async () => {
    expect((await upload(gw, SAMPLES[0]![1], 'innocent.txt', gw.mgmtKey, 'text/plain')).body.mime_type).toBe(
      'application/pdf',
    );
    expect((await upload(gw, ascii('[1, 2, 3]'), 'list.md')).body.mime_type).toBe('application/json');
    expect((await upload(gw, ascii('a plain sentence\n'), 'readme.md')).body.mime_type).toBe('text/markdown');
  });

  test('a file of no supported kind → 400 and nothing stored', async () => {
    const before = [await count('files'), await count('file_chunks')];
    const res = await upload(gw, Buffer.concat([Buffer.from([0, 1, 2, 3, 0xfe]), randomBytes(100)]), 'blob.bin');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(400);
    expect(res.body.error.metadata.errors[0].message).toMatch(/unsupported file type/);
    expect([await count('files'), await count('file_chunks')]).toEqual(before);
  });

  test('a file larger than the chunk size round-trips byte for byte, with Content-Type and Content-Length', async () => {
    const bytes = Buffer.concat([SAMPLES[1]![1], randomBytes(1_300_000)]);
    const up = await upload(big, bytes, 'big.png');
    expect(up.status).toBe(200);
    expect(up.body.size_bytes).toBe(bytes.length);
    const chunks = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM file_chunks WHERE file_id = $1', [
      up.body.id,
    ]);
    expect(chunks[0]!.n).toBe(Math.ceil(bytes.length / (64 * 1024)));

    const down = await request(big.app)
      .get(`/api/v1/files/${up.body.id}/content`)
      .set('Authorization', bearer(big.mgmtKey))
      .buffer(true)
      .parse(binary);
    expect(down.status).toBe(200);
    expect(down.headers['content-type']).toBe('image/png');
    expect(down.headers['content-length']).toBe(String(bytes.length));
    expect(down.headers['content-disposition']).toContain('big.png');
    expect(Buffer.compare(down.body as Buffer, bytes)).toBe(0);
  });

  test('text downloads carry their charset', async () => {
    const up = await upload(gw, SAMPLES[13]![1], 'table.csv');
    const down = await request(gw.app)
      .get(`/api/v1/files/${up.body.id}/content`)
      .set('Authorization', bearer(gw.mgmtKey))
      .buffer(true)
      .parse(binary);
    expect(down.status).toBe(200);
    expect(down.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect((down.body as Buffer).toString()).toBe(SAMPLES[13]![1].toString());
  });

  test('a file over files.maxBytes → 413 envelope, nothing stored, and the connection still answers', async () => {
    const before = [await count('files'), await count('file_chunks')];
    const over = Buffer.concat([SAMPLES[1]![1], randomBytes(4096)]); // 4096 + 16 bytes > 4096
    const res = await upload(small, over, 'over.png');
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: { code: 413, message: 'Request payload too large', metadata: { limit_bytes: 4096 } },
    });
    // Far beyond the limit (refused from Content-Length before reading), the client still gets the envelope.
    const huge = await upload(small, Buffer.concat([SAMPLES[1]![1], randomBytes(3 * 1024 * 1024)]), 'huge.png');
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe(413);
    expect([await count('files'), await count('file_chunks')]).toEqual(before);
    // Exactly at the limit is fine.
    const exact = await upload(small, Buffer.concat([SAMPLES[1]![1], randomBytes(4096 - 72)]), 'exact.png');
    expect(exact.status).toBe(200);
    expect(exact.body.size_bytes).toBe(4096);
  });

  test('Accept: application/octet-stream (the SDK download) gets raw bytes under that type', async () => {
    const up = await upload(gw, SAMPLES[1]![1], 'a.png');
    const down = await request(gw.app)
      .get(`/api/v1/files/${up.body.id}/content`)
      .set('Authorization', bearer(gw.mgmtKey))
      .set('Accept', 'application/octet-stream')
      .buffer(true)
      .parse(binary);
    expect(down.status).toBe(200);
    expect(down.headers['content-type']).toBe('application/octet-stream');
    expect(Buffer.compare(down.body as Buffer, SAMPLES[1]![1])).toBe(0);
  });

  test('a client that disconnects mid-upload leaves nothing, and the database stays usable', async () => {
    const before = [await count('files'), await count('file_chunks')];
    const outcomes = async () => (await big.deps.metrics.fileUploads.get()).values.reduce((n, v) => n + v.value, 0);
    const seen = await outcomes();
    const server = http.createServer(big.app);
    const req = await openMultipartUpload(server, '/api/v1/files', 10_000_000, { authorization: bearer(big.mgmtKey) });
    try {
      // Several chunks' worth, so the server is storing when the client goes away.
      await new Promise<void>((resolve) =>
        req.write(filePartHead('cut.txt') + 'partial line of text\n'.repeat(15_000), () => resolve()),
      );
      req.destroy();
      await eventually(async () => expect(await outcomes()).toBe(seen + 1), { timeoutMs: 10_000 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect([await count('files'), await count('file_chunks')]).toEqual(before);
    expect((await upload(big, ascii('still works\n'), 'after.txt')).status).toBe(200);
  });

  test('a stalled upload holds no replica-wide slot: with files.maxConcurrentUploads 1, other uploads go through meanwhile', async () => {
    const capped = await createTestGateway(db, kv, {
      files: { maxConcurrentUploads: 1, maxConcurrentUploadsPerOrg: 2 },
    });
    const server = http.createServer(capped.app);
    const stalled = await openMultipartUpload(server, '/api/v1/files', 1_000_000, {
      authorization: bearer(capped.mgmtKey),
    });
    try {
      stalled.write(filePartHead('slow.txt') + 'the first line\n');
      const other = await upload(capped, ascii('not waiting\n'), 'w.txt');
      expect([other.status, other.body.error]).toEqual([200, undefined]);
    } finally {
      stalled.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('beyond files.spoolMaxBytes an upload gets 503 with Retry-After, until the held bytes are given back', async () => {
    const tight = await createTestGateway(db, kv, { files: { maxBytes: 40_000, spoolMaxBytes: 50_000 } });
    const server = http.createServer(tight.app);
    const spooledBytes = async () => (await tight.deps.metrics.fileSpoolBytes.get()).values[0]?.value ?? 0;
    const stalled = await openMultipartUpload(server, '/api/v1/files', 45_000, {
      authorization: bearer(tight.mgmtKey),
    });
    try {
      // About 30 000 bytes of the file reach the spool (busboy holds back a boundary's length), then it stalls.
      stalled.write(filePartHead('held.txt') + 'x'.repeat(30_000));
      await eventually(async () => expect(await spooledBytes()).toBeGreaterThanOrEqual(29_900), { timeoutMs: 10_000 });
      const busy = await upload(tight, ascii('y'.repeat(30_000)), 'w.txt');
      expect(busy.status).toBe(503);
      expect(busy.headers['retry-after']).toBe('1');
      expect(busy.body.error).toMatchObject({
        code: 503,
        message: 'Service temporarily unavailable',
        metadata: { reason: 'the upload spool of this replica is full' },
      });
      stalled.destroy();
      await eventually(async () => expect(await spooledBytes()).toBe(0), { timeoutMs: 10_000 });
      expect((await upload(tight, ascii('y'.repeat(30_000)), 'w.txt')).status).toBe(200);
    } finally {
      stalled.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('bad uploads → 400 envelope and nothing stored', async () => {
    const before = [await count('files'), await count('file_chunks')];
    const auth = bearer(gw.mgmtKey);
    const post = () => request(gw.app).post('/api/v1/files').set('Authorization', auth);
    const cases = [
      await upload(gw, Buffer.alloc(0), 'empty.txt'),
      await post().send({ file: 'not multipart' }),
      await post().set('Content-Type', 'text/plain').send('hello'),
      await post().field('purpose', 'assistants'),
      await post().attach('file', ascii('one'), 'a.txt').attach('file', ascii('two'), 'b.txt'),
      await post().attach('document', ascii('hello'), 'a.txt'),
      await post()
        .set('Content-Type', 'multipart/form-data; boundary=xyz')
        .send('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nunterminated'),
      await post().query({ workspace_id: 'not-a-uuid' }).attach('file', ascii('hello'), 'a.txt'),
    ];
    for (const res of cases) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400 });
    }
    expect(cases[0]!.body.error.metadata.errors[0].message).toBe('the file is empty');
    expect([await count('files'), await count('file_chunks')]).toEqual(before);
  });

  test('other form fields next to the file are ignored', async () => {
    const res = await request(gw.app)
      .post('/api/v1/files')
      .set('Authorization', bearer(gw.mgmtKey))
      .field('purpose', 'user_data')
      .attach('file', ascii('hello there\n'), 'hi.txt');
    expect(res.status).toBe(200);
    expect(res.body.mime_type).toBe('text/plain');
  });

  test('GET /files pages with a cursor: every file once, in upload order', async () => {
    const tenant = await createTestGateway(db, kv);
    const empty = await request(tenant.app)
      .get('/api/v1/files')
      .set('Authorization', bearer(tenant.mgmtKey))
      .expect(200);
    expect(empty.body).toEqual({
      _shape: 'openrouter',
      data: [],
      cursor: null,
      first_id: null,
      last_id: null,
      has_more: false,
    });

    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await upload(tenant, ascii(`file number ${i}\n`), `f${i}.txt`)).body.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const res = await request(tenant.app)
        .get('/api/v1/files')
        .query({ limit: 3, ...(cursor ? { cursor } : {}) })
        .set('Authorization', bearer(tenant.mgmtKey))
        .expect(200);
      pages++;
      const pageIds = res.body.data.map((f: { id: string }) => f.id);
      expect(res.body._shape).toBe('openrouter');
      expect(res.body.first_id).toBe(pageIds[0]);
      expect(res.body.last_id).toBe(pageIds[pageIds.length - 1]);
      expect(Object.keys(res.body.data[0]).sort()).toEqual([...FILE_FIELDS].sort());
      seen.push(...pageIds);
      if (!res.body.has_more) {
        expect(res.body.cursor).toBeNull();
        break;
      }
      expect(pageIds).toHaveLength(3);
      cursor = res.body.cursor;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);

    const all = await request(tenant.app)
      .get('/api/v1/files?limit=1000')
      .set('Authorization', bearer(tenant.mgmtKey))
      .expect(200);
    expect(all.body.data.map((f: { id: string }) => f.id)).toEqual(ids);
    expect(all.body.has_more).toBe(false);
  });

  test('GET /files: order=asc is the order; after and after_id page on from a file id, like the cursor', async () => {
    const tenant = await createTestGateway(db, kv);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await upload(tenant, ascii(`cursor file ${i}\n`), `c${i}.txt`)).body.id);
    const list = async (query: Record<string, string | number>) =>
      (
        await request(tenant.app)
          .get('/api/v1/files')
          .query(query)
          .set('Authorization', bearer(tenant.mgmtKey))
          .expect(200)
      ).body;
    const idsOf = (page: { data: Array<{ id: string }> }) => page.data.map((f) => f.id);

    expect(idsOf(await list({ order: 'asc' }))).toEqual(ids);
    for (const param of ['after', 'after_id']) {
      const page = await list({ [param]: ids[1]!, limit: 2 });
      expect(idsOf(page)).toEqual(ids.slice(2, 4));
      expect(page.has_more).toBe(true);
      const viaCursor = await list({ cursor: page.cursor, limit: 2 });
      expect(idsOf(viaCursor)).toEqual(ids.slice(4));
      expect(idsOf(await list({ [param]: ids[4]!, order: 'asc' }))).toEqual([]);
    }
  });

  test.each([
    ['provider=openai', 'query.provider'],
    ['provider=anthropic', 'query.provider'],
    ['before_id=file-000000000000000000000000', 'query.before_id'],
    ['after=file-000000000000000000000000', 'query.after'],
    ['after_id=not-a-file-id', 'query.after_id'],
    ['after_id=file-000000000000000000000000&cursor=f2.AAAAAAAAAAAAAAAAAAAAAA', 'query.after_id'],
    ['order=desc', 'query.order'],
  ])('GET /files?%s → 400 naming %s', async (qs, path) => {
    const res = await request(gw.app).get(`/api/v1/files?${qs}`).set('Authorization', bearer(gw.mgmtKey));
    expect(res.status).toBe(400);
    expect(res.body.error.metadata.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  test('provider files are not ours: provider on upload, get, download or delete → 400 with a clear message, nothing changes', async () => {
    const auth = bearer(gw.mgmtKey);
    const id = (await upload(gw, ascii('provider test\n'), 'p.txt')).body.id;
    const before = [await count('files'), await count('file_chunks')];
    const calls = [
      request(gw.app).delete(`/api/v1/files/${id}?provider=openai`).set('Authorization', auth),
      request(gw.app).get(`/api/v1/files/${id}?provider=anthropic`).set('Authorization', auth),
      request(gw.app).get(`/api/v1/files/${id}/content?provider=openai`).set('Authorization', auth),
      request(gw.app)
        .post('/api/v1/files?provider=openai')
        .set('Authorization', auth)
        .attach('file', ascii('x\n'), 'x.txt'),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(400);
      expect(res.body.error.metadata.detail).toMatch(/provider/i);
      expect(res.body.error.metadata.errors[0].path).toBe('query.provider');
    }
    expect([await count('files'), await count('file_chunks')]).toEqual(before);
    await request(gw.app).get(`/api/v1/files/${id}`).set('Authorization', auth).expect(200);
  });

  test.each([
    ['limit=0'],
    ['limit=1001'],
    ['limit=abc'],
    ['cursor=bm9wZQ'],
    ['cursor=%21%21'],
    ['order=desc'],
    ['workspace_id=ws-slug'],
  ])('GET /files?%s → 400', async (qs) => {
    const res = await request(gw.app).get(`/api/v1/files?${qs}`).set('Authorization', bearer(gw.mgmtKey));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(400);
  });

  test('DELETE /files/{id} → 200 confirmation; metadata and content gone; again → 404', async () => {
    const up = await upload(big, Buffer.concat([SAMPLES[1]![1], randomBytes(200_000)]), 'del.png');
    const res = await request(big.app).delete(`/api/v1/files/${up.body.id}`).set('Authorization', bearer(big.mgmtKey));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ _shape: 'openrouter', id: up.body.id, type: 'file_deleted' });
    expect(await db.query('SELECT 1 FROM file_chunks WHERE file_id = $1', [up.body.id])).toHaveLength(0);
    expect(await db.query('SELECT 1 FROM files WHERE id = $1', [up.body.id])).toHaveLength(0);
    for (const path of ['', '/content']) {
      const gone = await request(big.app)
        .get(`/api/v1/files/${up.body.id}${path}`)
        .set('Authorization', bearer(big.mgmtKey));
      expect(gone.status).toBe(404);
      expect(gone.body).toEqual({ error: { code: 404, message: 'Resource not found' } });
    }
    const again = await request(big.app)
      .delete(`/api/v1/files/${up.body.id}`)
      .set('Authorization', bearer(big.mgmtKey));
    expect(again.status).toBe(404);
  });

  test('unknown ids and ids not in our format → 404 on get, content and delete, nothing deleted; no key → 401', async () => {
    const auth = bearer(gw.mgmtKey);
    const kept = (await upload(gw, ascii('still here\n'), 'kept.txt')).body.id;
    const before = [await count('files'), await count('file_chunks')];
    const ids = [
      'file-doesnotexist',
      'or_file_011CNha8iCJcU1wXNR6q4V8w',
      'file-..bad',
      'bad%20id!',
      'x'.repeat(200),
      'nul%00byte',
      `${kept}x`,
      kept.toUpperCase(),
    ];
    for (const id of ids) {
      for (const [method, path] of [
        ['get', ''],
        ['get', '/content'],
        ['delete', ''],
      ] as const) {
        const res = await request(gw.app)[method](`/api/v1/files/${id}${path}`).set('Authorization', auth);
        expect([id, path, method, res.status]).toEqual([id, path, method, 404]);
        expect(res.body).toEqual({ error: { code: 404, message: 'Resource not found' } });
      }
    }
    expect([await count('files'), await count('file_chunks')]).toEqual(before);
    // A workspace_id that is not a UUID is still a 400 (the spec types it as a UUID).
    expect(
      (await request(gw.app).delete(`/api/v1/files/${kept}?workspace_id=nope`).set('Authorization', auth)).status,
    ).toBe(400);
    expect(
      (await request(gw.app).delete('/api/v1/files/file-..bad?workspace_id=nope').set('Authorization', auth)).status,
    ).toBe(400);
    await request(gw.app).get(`/api/v1/files/${kept}`).set('Authorization', auth).expect(200);
    const unauth = await request(gw.app).get('/api/v1/files');
    expect(unauth.status).toBe(401);
    expect(unauth.body.error.code).toBe(401);
  });

  test("a non-ASCII file name sent by Node's FormData is kept exactly (UTF-8, not latin1)", async () => {
    const name = 'résumé 日本.txt';
    const server = http.createServer(gw.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const form = new FormData();
      form.append('file', new Blob(['Curriculum vitae\n']), name);
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/files`, {
        method: 'POST',
        headers: { authorization: bearer(gw.mgmtKey) },
        body: form,
      });
      expect(res.status).toBe(200);
      const file = (await res.json()) as { id: string; filename: string };
      expect(file.filename).toBe(name);
      const got = await request(gw.app)
        .get(`/api/v1/files/${file.id}`)
        .set('Authorization', bearer(gw.mgmtKey))
        .expect(200);
      expect(got.body.filename).toBe(name);
      const down = await request(gw.app)
        .get(`/api/v1/files/${file.id}/content`)
        .set('Authorization', bearer(gw.mgmtKey))
        .expect(200);
      expect(down.headers['content-disposition']).toContain(`filename*=UTF-8''${encodeURIComponent(name)}`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
