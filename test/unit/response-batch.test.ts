/**
 * ResponseBatch: responses queued during one poll pass are written after it (not from the
 * callback that queued them), in order, each whole; a response whose client left is skipped;
 * one whose write throws is destroyed and reported while the rest still go out.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ResponseBatch } from '../../src/http/response-batch';

interface Held {
  req: IncomingMessage;
  res: ServerResponse;
}

/** A real server that hands each request to the test instead of answering it. */
async function holdingServer(): Promise<{ port: number; next: () => Promise<Held>; close: () => Promise<void> }> {
  const waiting: Held[] = [];
  const wanted: Array<(h: Held) => void> = [];
  const server = http.createServer((req, res) => {
    const held = { req, res };
    const want = wanted.shift();
    if (want) want(held);
    else waiting.push(held);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    next: () => {
      const held = waiting.shift();
      return held ? Promise.resolve(held) : new Promise((resolve) => wanted.push(resolve));
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** POST to the server; resolves to the status and body, or to the error's code if the connection failed. */
function call(port: number): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.request({ port, host: '127.0.0.1', method: 'POST', path: '/', agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString() }));
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end('{}');
  });
}

const nextCheckPhase = () => new Promise<void>((resolve) => setImmediate(resolve));

test('responses queued in one pass are written after it, in order, each whole', async () => {
  const server = await holdingServer();
  try {
    const errors: unknown[] = [];
    const batch = new ResponseBatch((err) => errors.push(err));
    const answers = [call(server.port), call(server.port), call(server.port)];
    const held = [await server.next(), await server.next(), await server.next()];
    const finished: number[] = [];
    held.forEach((h, i) => h.res.on('finish', () => finished.push(i)));

    held.forEach((h, i) => {
      const body = [Buffer.from(`{"n":${i},`), Buffer.from('"rest":"x"}')];
      batch.send(h.res, 200 + i, { 'content-type': 'application/json', 'content-length': body[0]!.length + body[1]!.length }, body);
    });
    // Nothing has been written from the queueing callback itself.
    expect(held.map((h) => h.res.headersSent)).toEqual([false, false, false]);
    expect(batch.size).toBe(3);

    await nextCheckPhase();
    expect(batch.size).toBe(0);
    expect(held.map((h) => h.res.headersSent)).toEqual([true, true, true]);
    expect(await Promise.all(answers)).toEqual([0, 1, 2].map((i) => ({ status: 200 + i, body: `{"n":${i},"rest":"x"}` })));
    expect(finished).toEqual([0, 1, 2]);
    expect(errors).toEqual([]);
  } finally {
    await server.close();
  }
});

test('a response whose client has gone is skipped; one whose write throws is destroyed and reported, the others still go out', async () => {
  const server = await holdingServer();
  try {
    const errors: Array<{ err: unknown; res: ServerResponse }> = [];
    const batch = new ResponseBatch((err, res) => errors.push({ err, res }));
    const answers = [call(server.port), call(server.port), call(server.port)];
    const [gone, broken, fine] = [await server.next(), await server.next(), await server.next()];

    gone!.res.destroy();
    const writeHead = jest.spyOn(gone!.res, 'writeHead');
    // Headers already sent: writeHead throws ERR_HTTP_HEADERS_SENT.
    broken!.res.writeHead(200, { 'content-length': 1 });
    const body = Buffer.from('ok');
    batch.send(gone!.res, 200, { 'content-length': body.length }, [body]);
    batch.send(broken!.res, 200, { 'content-length': body.length }, [body]);
    batch.send(fine!.res, 201, { 'content-length': body.length }, [body]);
    await nextCheckPhase();

    expect(writeHead).not.toHaveBeenCalled();
    expect(errors).toHaveLength(1);
    expect(errors[0]!.res).toBe(broken!.res);
    expect((errors[0]!.err as NodeJS.ErrnoException).code).toBe('ERR_HTTP_HEADERS_SENT');
    expect(broken!.res.destroyed).toBe(true);
    const [a, b, c] = await Promise.all(answers);
    expect(a).toHaveProperty('error');
    expect(b).not.toEqual({ status: 200, body: 'ok' });
    expect(c).toEqual({ status: 201, body: 'ok' });
  } finally {
    await server.close();
  }
});

test('a batch flushed leaves the next send to schedule its own pass', async () => {
  const server = await holdingServer();
  try {
    const batch = new ResponseBatch(() => undefined);
    const first = call(server.port);
    const h1 = await server.next();
    batch.send(h1.res, 200, { 'content-length': 1 }, [Buffer.from('a')]);
    await nextCheckPhase();
    expect(await first).toEqual({ status: 200, body: 'a' });

    const second = call(server.port);
    const h2 = await server.next();
    batch.send(h2.res, 200, { 'content-length': 1 }, [Buffer.from('b')]);
    expect(batch.size).toBe(1);
    await nextCheckPhase();
    expect(await second).toEqual({ status: 200, body: 'b' });
  } finally {
    await server.close();
  }
});
