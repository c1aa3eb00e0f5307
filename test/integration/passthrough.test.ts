/**
 * Passthrough of other OpenAI-compatible routes through HTTP: off by default (404), proxied
 * after auth and rate limiting when configured, the client's key replaced by the upstream's,
 * request bodies forwarded byte for byte, SSE chunks delivered as they are produced, and an
 * unreachable upstream answered with the 502 envelope.
 */
import http, { type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { DATABASES, KVS } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';

const UPSTREAM_KEY = 'sk-upstream-secret-0123456789';

/** A fake OpenAI-compatible upstream that records what it received and streams on request. */
class FakeUpstream {
  readonly seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];
  /** Resolved by the test to let the stream continue after the first chunk. */
  release: () => void = () => undefined;
  private server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        if (JSON.parse(body || '{}').hang === true) return; // never answers
        if (req.url === '/v1/completions' && JSON.parse(body || '{}').stream === true) {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          res.write('data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n');
          // The rest of the stream, once the test calls `release` (a promise that cannot reject).
          void new Promise<void>((resolve) => (this.release = resolve)).then(() => {
            res.write('data: {"choices":[{"delta":{"content":"lo"}}]}\n\n');
            res.end('data: [DONE]\n\n');
          });
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'upstream=1' });
        res.end(JSON.stringify({ id: 'cmpl-1', object: 'text_completion', echo: body }));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Nothing listens on port 1 (a privileged port no test binds), so connecting is refused. A port
 * found free and released again is not safe here: another server of the run, even supertest's own
 * server for the gateway under test, can be given it meanwhile and answer instead (seen in CI: 404).
 */
const DEAD_UPSTREAM = 'http://127.0.0.1:1/v1';

describe('passthrough', () => {
  let db: Database;
  let kv: Kv;
  const upstream = new FakeUpstream();
  let gw: TestGateway;
  let key: string;

  beforeAll(async () => {
    db = await DATABASES[0]!.open();
    kv = await KVS[0]!.open();
    await upstream.start();
    gw = await createTestGateway(db, kv, {
      passthrough: { baseUrl: `http://127.0.0.1:${upstream.port}/v1`, apiKey: UPSTREAM_KEY },
    });
    key = (await createInferenceKey(gw)).secret;
  });
  afterAll(async () => {
    await upstream.stop();
    await kv.close();
    await db.close();
  });

  test('is off unless configured: the routes are unknown (404 envelope)', async () => {
    const off = await createTestGateway(db, kv);
    const offKey = (await createInferenceKey(off)).secret;
    const before = upstream.seen.length;
    for (const [method, path] of [['post', '/api/v1/completions']] as const) {
      const res = await request(off.app)[method](path).set('Authorization', bearer(offKey)).send({ model: 'x' });
      expect(res.status).toBe(404);
      // The 404 says the route needs the passthrough (issue 61 item 8), instead of a bare "Resource not found".
      expect(res.body.error).toMatchObject({
        code: 404,
        message: expect.stringMatching(
          /^Resource not found: no route for POST \/api\/v1\/completions; .*set PASSTHROUGH_BASE_URL/,
        ),
        metadata: { set: 'PASSTHROUGH_BASE_URL' },
      });
    }
    expect(upstream.seen.length).toBe(before);
  });

  test('POST /completions is proxied; the upstream sees its own key, never the client key or cookies', async () => {
    const res = await request(gw.app)
      .post('/api/v1/completions')
      .set('Authorization', bearer(key))
      .set('Cookie', 'session=abc')
      .set('X-Api-Key', key)
      .send({ model: 'gpt-test', prompt: 'hi' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'cmpl-1', object: 'text_completion', echo: '{"model":"gpt-test","prompt":"hi"}' });
    expect(res.headers['set-cookie']).toBeUndefined();
    const seen = upstream.seen.at(-1)!;
    expect(seen.url).toBe('/v1/completions');
    expect(seen.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers['x-api-key']).toBeUndefined();
    expect(JSON.stringify(seen.headers)).not.toContain(key);
  });

  test('POST /completions forwards the body byte for byte (not re-serialised)', async () => {
    const raw = '{"model":"gpt-test",  "messages":[{"role":"user","content":"héllo ✓"}],"extra":{"kept":true}}';
    const res = await request(gw.app)
      .post('/api/v1/completions?trace=1')
      .set('Authorization', bearer(key))
      .set('Content-Type', 'application/json')
      .send(raw);
    expect(res.status).toBe(200);
    const seen = upstream.seen.at(-1)!;
    expect(seen.url).toBe('/v1/completions?trace=1');
    expect(seen.body).toBe(raw);
    expect(res.body.echo).toBe(raw);
  });

  test('POST /audio/* and /images/* are forwarded too (the gateway models neither)', async () => {
    for (const path of ['/audio/speech', '/images/generations']) {
      const res = await request(gw.app)
        .post(`/api/v1${path}`)
        .set('Authorization', bearer(key))
        .send({ model: 'm', input: 'x' });
      expect(res.status).toBe(200);
      expect(upstream.seen.at(-1)!.url).toBe(`/v1${path}`);
    }
  });

  test('GET /models is served by the gateway itself, never proxied', async () => {
    const before = upstream.seen.length;
    const res = await request(gw.app).get('/api/v1/models').set('Authorization', bearer(key));
    expect(res.status).toBe(200);
    expect(res.body.data.map((m: { id: string }) => m.id)).toContain('openai/gpt-4o');
    expect(upstream.seen.length).toBe(before);
  });

  test('SSE chunks reach the client as the upstream produces them (no buffering)', async () => {
    const server = gw.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const received: string[] = [];
      const firstChunk = new Promise<string>((resolveFirst, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/v1/completions',
            headers: { authorization: bearer(key), 'content-type': 'application/json' },
          },
          (res) => {
            expect(res.statusCode).toBe(200);
            expect(res.headers['content-type']).toContain('text/event-stream');
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              received.push(chunk);
              if (received.length === 1) resolveFirst(chunk);
            });
            res.on('end', () => streamDone());
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ model: 'gpt-test', stream: true, messages: [] }));
      });
      let streamDone: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (streamDone = resolve));
      // The upstream holds the rest of the stream until released, so the first chunk can only
      // arrive here if the gateway forwards it without waiting for the end.
      expect(await firstChunk).toContain('"Hel"');
      expect(received.join('')).not.toContain('[DONE]');
      upstream.release();
      await done;
      const all = received.join('');
      expect(all).toContain('"lo"');
      expect(all.trim().endsWith('data: [DONE]')).toBe(true);
    } finally {
      server.close();
    }
  });

  test('a management key is refused (403) and nothing reaches the upstream', async () => {
    const before = upstream.seen.length;
    const res = await request(gw.app)
      .post('/api/v1/completions')
      .set('Authorization', bearer(gw.mgmtKey))
      .send({ model: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe(403);
    expect(upstream.seen.length).toBe(before);
  });

  test('no key → 401 before any proxying, counted under the route template (not "unmatched")', async () => {
    const before = upstream.seen.length;
    const res = await request(gw.app).post('/api/v1/completions').send({ model: 'x' });
    expect(res.status).toBe(401);
    expect(upstream.seen.length).toBe(before);
    const metrics = await gw.deps.metrics.registry.metrics();
    expect(metrics).toMatch(
      /switchyard_http_requests_total\{route="\/api\/v1\/completions",method="POST",status_class="4xx"\} [1-9]/,
    );
    expect(metrics).not.toMatch(/switchyard_http_requests_total\{route="unmatched",method="POST"/);
  });

  test('the per-key rate limit applies to proxied routes', async () => {
    const limited = await createTestGateway(db, kv, {
      passthrough: { baseUrl: `http://127.0.0.1:${upstream.port}/v1`, apiKey: UPSTREAM_KEY },
      rateLimit: { limit: 2, windowMs: 60_000 },
    });
    const k = (await createInferenceKey(limited)).secret;
    const before = upstream.seen.length;
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push(
        (await request(limited.app).post('/api/v1/completions').set('Authorization', bearer(k)).send({ model: 'x' }))
          .status,
      );
    expect(statuses).toEqual([200, 200, 429]);
    expect(upstream.seen.length).toBe(before + 2);
  });

  test('an upstream that does not answer within passthrough.timeoutMs → 524 envelope', async () => {
    const slow = await createTestGateway(db, kv, {
      passthrough: { baseUrl: `http://127.0.0.1:${upstream.port}/v1`, apiKey: UPSTREAM_KEY, timeoutMs: 200 },
    });
    const k = (await createInferenceKey(slow)).secret;
    const res = await request(slow.app)
      .post('/api/v1/completions')
      .set('Authorization', bearer(k))
      .send({ model: 'x', hang: true });
    expect(res.status).toBe(524);
    expect(res.body.error.code).toBe(524);
  });

  test('an unreachable upstream → 502 envelope', async () => {
    const dead = await createTestGateway(db, kv, { passthrough: { baseUrl: DEAD_UPSTREAM, apiKey: UPSTREAM_KEY } });
    const k = (await createInferenceKey(dead)).secret;
    const res = await request(dead.app)
      .post('/api/v1/completions')
      .set('Authorization', bearer(k))
      .send({ model: 'x', messages: [] });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ code: 502, message: 'Provider returned error' });
    expect(JSON.stringify(res.body)).not.toContain(UPSTREAM_KEY);
  });
});
