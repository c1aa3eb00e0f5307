/**
 * HTTP-level errors answered in the envelope, over raw sockets to a real listening gateway on
 * 127.0.0.1 (issue 33 item 7): headers too large (431), a malformed request (400), a head that
 * never ends (408 after `server.headersTimeoutMs`), and a declared body over the limit (413 at
 * once, before any body byte is sent; no `100 Continue`). Node answered these with empty bodies,
 * and held the oversized upload until its request timeout. Issue 43 item 10: a bad chunk and
 * `Transfer-Encoding: gzip` closed the connection with 0 bytes, a missing `Host` and `Expect: foo`
 * got bare 400/417, and a `Content-Encoding: gzip` body that is not gzip a 404.
 */
import net from 'node:net';
import { openTestPglite, uniqueId } from '../helpers/services';
import { testConfig } from '../helpers/gateway';
import { assembleDeps, type AppDeps } from '../../src/deps';
import { startServer, type RunningServer } from '../../src/server';
import { createLogger } from '../../src/observability/logger';
import { provisionOrg } from '../../src/orgs/provision';
import { MemoryKv } from '../../src/kv/memory';
import type { Database } from '../../src/store/db';

/** Send `data` on a fresh connection; resolve with everything received until the server closes (or `waitMs`). */
function exchange(port: number, data: string, waitMs = 8000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(got);
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
    socket.on('close', done);
    socket.on('error', done);
    socket.write(data);
  });
}

/** Status and parsed JSON body of a raw HTTP/1.1 response. */
function parse(raw: string): {
  status: number;
  headers: string;
  body: { error?: { code: number; message: string; metadata?: Record<string, unknown> } };
} {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
    headers: head,
    body: JSON.parse(rest.join('\r\n\r\n') || 'null'),
  };
}

describe('HTTP-level errors on a listening gateway', () => {
  let db: Database;
  let deps: AppDeps;
  let server: RunningServer;
  let secret: string;

  beforeAll(async () => {
    db = await openTestPglite();
    const config = testConfig({
      server: {
        port: 0,
        metricsPort: 0,
        host: '127.0.0.1',
        headersTimeoutMs: 1000,
        requestTimeoutMs: 5000,
        bodyLimitBytes: 16384,
        inferenceBodyLimitBytes: 16384,
      },
      files: { maxBytes: 1024 * 1024, uploadDeadlineMs: 4000 },
    });
    deps = await assembleDeps(config, db, new MemoryKv(`t:${uniqueId()}:`), { logger: createLogger('silent') });
    secret = (await db.transaction((tx) => provisionOrg(tx, 'HTTP Org'))).secret;
    server = await startServer(deps);
  });
  afterAll(async () => {
    await server.shutdown('test');
  });

  test('headers too large → 431 envelope', async () => {
    const res = parse(
      await exchange(server.apiPort, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(res.status).toBe(431);
    expect(res.body.error).toEqual({ code: 431, message: 'Request header fields too large' });
  });

  test.each([
    ['a garbage request line', 'GARBAGE\r\n\r\n'],
    ['a header without a colon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'],
    [
      'two Content-Lengths that disagree',
      'POST /api/v1/keys HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
    ],
  ])('%s → 400 envelope', async (_label, data) => {
    const res = parse(await exchange(server.apiPort, data));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 400, message: 'Invalid request parameters' });
  });

  describe('framing and expectations Node used to answer itself (issue 43 item 10)', () => {
    // Built when a test runs: the key exists only after beforeAll.
    const post = (headers: string, body: string) => () =>
      `POST /api/v1/keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\n${headers}\r\n${body}`;

    test.each([
      ['a malformed chunk size', post('Transfer-Encoding: chunked\r\n', 'zz\r\n{}\r\n0\r\n\r\n'), /chunk/],
      ['a chunk without its CRLF', post('Transfer-Encoding: chunked\r\n', '2\r\n{}XX0\r\n\r\n'), /chunk/],
      ['no Host header on HTTP/1.1', () => 'GET /healthz HTTP/1.1\r\nAccept: */*\r\n\r\n', /Host/],
    ])('%s → 400 envelope, then the connection closes', async (_label, data, detail) => {
      const res = parse(await exchange(server.apiPort, data()));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 400,
        message: 'Invalid request parameters',
        metadata: { detail: expect.stringMatching(detail) },
      });
      expect(res.headers).toMatch(/Connection: close/i);
    });

    test.each([
      ['Transfer-Encoding: gzip', post('Transfer-Encoding: gzip\r\n', '{}')],
      ['Transfer-Encoding: gzip, chunked', post('Transfer-Encoding: gzip, chunked\r\n', '2\r\n{}\r\n0\r\n\r\n')],
    ])('%s → 415 envelope naming the supported coding', async (_label, data) => {
      const res = parse(await exchange(server.apiPort, data()));
      expect(res.status).toBe(415);
      expect(res.body.error).toMatchObject({
        code: 415,
        message: 'Unsupported media type',
        metadata: { detail: expect.stringMatching(/chunked/) },
      });
    });

    test('Expect: something other than 100-continue → 417 envelope', async () => {
      const res = parse(await exchange(server.apiPort, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n'));
      expect(res.status).toBe(417);
      expect(res.body.error).toMatchObject({
        code: 417,
        message: 'Expectation Failed',
        metadata: { detail: expect.stringMatching(/100-continue/) },
      });
    });

    test('Content-Encoding: gzip with a body that is not gzip → 400 envelope', async () => {
      const res = parse(
        await exchange(
          server.apiPort,
          post('Content-Encoding: gzip\r\nContent-Length: 13\r\nConnection: close\r\n', '{"name":"x"}\n')(),
        ),
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 400,
        message: 'Invalid request parameters',
        metadata: { errors: [{ path: 'body', message: expect.stringMatching(/gzip/) }] },
      });
    });

    test('a well-formed chunked body still works', async () => {
      const body = JSON.stringify({ name: 'chunked' });
      const raw = await exchange(
        server.apiPort,
        post(
          'Transfer-Encoding: chunked\r\nConnection: close\r\n',
          `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
        )(),
      );
      expect(parse(raw).status).toBe(201);
      // HTTP/1.0 has no Host requirement.
      expect(parse(await exchange(server.apiPort, 'GET /healthz HTTP/1.0\r\n\r\n')).status).toBe(200);
    });
  });

  test('a head that never ends → 408 envelope after headersTimeoutMs', async () => {
    const res = parse(await exchange(server.apiPort, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n'));
    expect(res.status).toBe(408);
    expect(res.body.error).toEqual({ code: 408, message: 'Operation timed out. Please try again later.' });
  });

  test('a declared JSON body over the limit → 413 at once, without sending the body', async () => {
    const raw = await exchange(
      server.apiPort,
      `POST /api/v1/keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\n\r\n`,
    );
    const res = parse(raw);
    expect(res.status).toBe(413);
    expect(res.body.error).toEqual({
      code: 413,
      message: 'Request payload too large',
      metadata: { limit_bytes: 16384, declared_bytes: 99999999 },
    });
    expect(res.headers).toMatch(/Connection: close/i);
  });

  test('Expect: 100-continue with an oversized upload → 413 and no 100 Continue', async () => {
    const raw = await exchange(
      server.apiPort,
      `POST /api/v1/files HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 99999999\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(raw).not.toMatch(/100 Continue/);
    expect(parse(raw).status).toBe(413);
  });

  test('within the limits, 100-continue and keep-alive work as before; the refusals are counted', async () => {
    const body = JSON.stringify({ name: 'via continue' });
    const raw = await exchange(
      server.apiPort,
      `POST /api/v1/keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n${body}` +
        'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(raw.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 100', 'HTTP/1.1 201', 'HTTP/1.1 200']);
    const metrics = await deps.metrics.registry.metrics();
    for (const status of ['400', '408', '413', '415', '417', '431'])
      expect(metrics).toMatch(new RegExp(`switchyard_http_refusals_total\\{status="${status}"\\} [1-9]`));
  });
});
