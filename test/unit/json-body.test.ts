/**
 * The hot route's JSON reader on its own, behind a plain node:http server: which requests it
 * reads itself (the plain case) and which it hands to the fallback (body-parser in the app), and
 * what it makes of the bodies it reads. Parity of answers with body-parser through the real app
 * is in test/integration/json-body.test.ts.
 */
import http from 'node:http';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { hotJsonBody } from '../../src/http/json-body';
import { GatewayError } from '../../src/errors';

const LIMIT = 1000;
let server: http.Server;
let base: string;
/** Every answer the server gave, in order (also those to clients that went away). */
const answers: unknown[] = [];

/** Answers `{via, body}` or `{via, error}`: `via` says whether the fallback ran. */
const fallback: RequestHandler = (req: Request, _res: Response, next: NextFunction) => {
  (req as Request & { via?: string }).via = 'fallback';
  req.resume();
  req.once('end', () => next());
};

beforeAll(async () => {
  const reader = hotJsonBody(LIMIT, fallback);
  server = http.createServer((req, res) => {
    const r = req as Request & { via?: string };
    reader(r, res as Response, (err?: unknown) => {
      const payload: unknown = err instanceof GatewayError ? { via: r.via ?? 'reader', error: err.status, metadata: err.metadata } : { via: r.via ?? 'reader', body: r.body };
      answers.push(payload);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(payload));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function post(body: string | Buffer, headers: Record<string, string>): Promise<{ via: string; body?: unknown; error?: number; metadata?: unknown }> {
  const res = await fetch(base, { method: 'POST', headers, body });
  return (await res.json()) as { via: string; body?: unknown; error?: number };
}

test.each([
  ['application/json'],
  ['application/json; charset=utf-8'],
  ['Application/JSON;Charset=UTF-8'],
  ['application/json ; charset=utf8'],
])('reads %s itself', async (type) => {
  expect(await post('{"a":[1,2],"b":"é"}', { 'content-type': type })).toEqual({ via: 'reader', body: { a: [1, 2], b: 'é' } });
});

test('as body-parser with strict off: a BOM is dropped, an empty body is {}, any JSON value is accepted', async () => {
  expect(await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"x":1}')]), { 'content-type': 'application/json' })).toEqual({ via: 'reader', body: { x: 1 } });
  expect(await post('', { 'content-type': 'application/json' })).toEqual({ via: 'reader', body: {} });
  expect(await post('"text"', { 'content-type': 'application/json' })).toEqual({ via: 'reader', body: 'text' });
  expect(await post('null', { 'content-type': 'application/json' })).toEqual({ via: 'reader', body: null });
});

test('a body that is not JSON is a 400 naming the body', async () => {
  for (const bad of ['{"model": ', '{a:1}', 'NaN', '\u0000']) {
    expect(await post(bad, { 'content-type': 'application/json' })).toEqual({ via: 'reader', error: 400, metadata: { errors: [{ path: 'body', message: 'is not valid JSON' }] } });
  }
});

test.each([
  ['another charset', { 'content-type': 'application/json; charset=latin1' }],
  ['another type', { 'content-type': 'text/plain' }],
  ['a JSON suffix type', { 'content-type': 'application/vnd.api+json' }],
  ['no type', { 'content-type': '' }],
  ['a content encoding', { 'content-type': 'application/json', 'content-encoding': 'gzip' }],
])('hands %s to the fallback', async (_name, headers: Record<string, string>) => {
  expect((await post('{"x":1}', headers)).via).toBe('fallback');
});

test('hands a body over the limit, and one without a length (chunked), to the fallback', async () => {
  expect((await post(`{"x":"${'a'.repeat(LIMIT)}"}`, { 'content-type': 'application/json' })).via).toBe('fallback');
  const stream = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('{"x":1}')); c.close(); } });
  const res = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit);
  expect(((await res.json()) as { via: string }).via).toBe('fallback');
});

test('a client that goes away mid-body is answered 400 (unreadable) and the server goes on', async () => {
  const done = new Promise<void>((resolve) => {
    const socket = net.connect((server.address() as AddressInfo).port, '127.0.0.1', () => {
      socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"partial":');
      setTimeout(() => socket.destroy(), 50);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
  const before = answers.length;
  await done;
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(answers.slice(before)).toEqual([{ via: 'reader', error: 400, metadata: { errors: [{ path: 'body', message: 'could not be read' }] } }]);
  expect(await post('{"after":true}', { 'content-type': 'application/json' })).toEqual({ via: 'reader', body: { after: true } });
});

test('refuses a limit that is not a positive integer at build time', () => {
  expect(() => hotJsonBody(0, fallback)).toThrow(/bad limit/);
  expect(() => hotJsonBody(1.5, fallback)).toThrow(/bad limit/);
});

test('leaves no listener on the request once the body is read, so nothing runs at its close', async () => {
  const reader = hotJsonBody(LIMIT, fallback);
  const req = Object.assign(new PassThrough(), { headers: { 'content-type': 'application/json', 'content-length': '7' } }) as unknown as Request;
  const events = ['data', 'end', 'error', 'close'] as const;
  const before = events.map((e) => req.listenerCount(e));
  const done = new Promise<unknown>((resolve) => reader(req, {} as Response, resolve));
  (req as unknown as PassThrough).end('{"x":1}');
  expect(await done).toBeUndefined();
  expect(req.body).toEqual({ x: 1 });
  expect(events.map((e) => req.listenerCount(e))).toEqual(before);
});
