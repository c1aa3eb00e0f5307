/**
 * POST /embeddings bodies are read by express.json (body-parser), plain or compressed. Through the
 * real app: each body below is sent once plainly and once gzip-compressed (body-parser inflates
 * it), and both must get the same answer.
 */
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { bearer } from '../helpers/gateway';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness();
});
afterAll(() => h.close());

const VALID = '{"model":"openai/text-embedding-3-small","input":"hello"}';

/** Sends `body` byte for byte: superagent would otherwise JSON-encode a Buffer sent as JSON. */
function send(body: Buffer, headers: Record<string, string>) {
  const asIs = (b: unknown) => b as string;
  return request(h.gw.app)
    .post('/api/v1/embeddings')
    .set('Authorization', bearer(h.key))
    .set(headers)
    .serialize(asIs)
    .send(body);
}

/** The parts of an answer that do not change per request (ids and timings do). */
function stable(res: request.Response) {
  return res.status === 200
    ? { status: 200, object: res.body.object, model: res.body.model, floats: res.body.data?.[0]?.embedding?.length }
    : { status: res.status, body: res.body as unknown };
}

test.each([
  ['a valid request', Buffer.from(VALID)],
  ['a valid request after a BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(VALID)])],
  ['an empty body', Buffer.alloc(0)],
  ['a JSON string', Buffer.from('"hello"')],
  ['an array', Buffer.from('[1,2]')],
  ['truncated JSON', Buffer.from('{"model": "openai/')],
  [
    'invalid UTF-8 inside a string',
    Buffer.concat([
      Buffer.from('{"model":"openai/text-embedding-3-small","input":"a'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('b"}'),
    ]),
  ],
])('%s: the same answer from the reader and from body-parser', async (_name, body) => {
  const plain = await send(body, { 'Content-Type': 'application/json' });
  const inflated = await send(gzipSync(body), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
  expect(stable(plain)).toEqual(stable(inflated));
  expect(plain.status).toBeLessThan(500);
});

test('a valid request is served through the reader with a charset parameter', async () => {
  const res = await send(Buffer.from(VALID), { 'Content-Type': 'application/json; charset=utf-8' });
  expect(res.status).toBe(200);
  expect(res.body.data[0].embedding.length).toBeGreaterThan(0);
});

test('what only body-parser serves keeps its answers: another charset 415, an unknown encoding 415, over the limit 413', async () => {
  const latin1 = await send(Buffer.from(VALID), { 'Content-Type': 'application/json; charset=latin1' });
  expect(latin1.status).toBe(415);
  expect(latin1.body.error.code).toBe(415);
  const unknown = await send(Buffer.from(VALID), { 'Content-Type': 'application/json', 'Content-Encoding': 'snappy' });
  expect(unknown.status).toBe(415);
  const limit = h.gw.deps.config.server.inferenceBodyLimitBytes;
  const big = await send(
    Buffer.from(JSON.stringify({ model: 'openai/text-embedding-3-small', input: 'x'.repeat(limit) })),
    { 'Content-Type': 'application/json' },
  );
  expect(big.status).toBe(413);
  expect(big.body.error.code).toBe(413);
});
