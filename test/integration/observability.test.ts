/**
 * Observability through HTTP: one structured access line per request carrying the request id
 * and route template but never the Authorization header; Prometheus metrics labelled by route
 * template and status class, never by key; liveness and readiness (including Redis down and
 * draining).
 */
import { PassThrough } from 'node:stream';
import { jest } from '@jest/globals';
import request from 'supertest';
import { openTestPglite, uniqueId } from '../helpers/services';
import { bearer, createInferenceKey, testConfig } from '../helpers/gateway';
import { assembleDeps } from '../../src/deps';
import { createApp, createMetricsApp } from '../../src/app';
import { createLogger } from '../../src/observability/logger';
import { provisionOrg } from '../../src/orgs/provision';
import type { Database } from '../../src/store/db';
import type { ConfigOverrides } from '../../src/config';
import { MemoryKv } from '../../src/kv/memory';
import { RedisKv } from '../../src/kv/redis';

let db: Database;
beforeAll(async () => {
  db = await openTestPglite();
});
afterAll(() => db.close());

async function gatewayWithLogCapture(
  kv = new MemoryKv(`t:${uniqueId()}:`),
  overrides: ConfigOverrides = {},
  database: Database = db,
) {
  const stream = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  let raw = '';
  stream.on('data', (chunk: Buffer) => {
    raw += chunk.toString();
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
  });
  const deps = await assembleDeps(testConfig({ ...overrides, log: { level: 'info' } }), database, kv, {
    logger: createLogger('info', stream),
  });
  const org = await database.transaction((tx) => provisionOrg(tx, 'Obs Org'));
  return { deps, app: createApp(deps), lines, raw: () => raw, mgmtKey: org.secret, keyHash: org.keyHash };
}

const flush = () => new Promise((r) => setImmediate(r));

test('one JSON access line per request, with request id and route template, never the secret', async () => {
  const gw = await gatewayWithLogCapture();
  const { secret, hash } = await createInferenceKey({ app: gw.app, mgmtKey: gw.mgmtKey });
  gw.lines.length = 0;
  await request(gw.app)
    .get(`/api/v1/keys/${hash}`)
    .set('Authorization', bearer(gw.mgmtKey))
    .set('X-Request-Id', 'req-42')
    .expect(200);
  await request(gw.app).get('/api/v1/key').set('Authorization', bearer(secret)).expect(200);
  await flush();
  const access = gw.lines.filter((l) => l.message === 'request');
  expect(access).toHaveLength(2);
  expect(access[0]).toMatchObject({
    request_id: 'req-42',
    method: 'GET',
    route: '/api/v1/keys/:hash',
    path: `/api/v1/keys/${hash}`,
    status: 200,
    level: 'info',
  });
  expect(typeof access[0]!.duration_ms).toBe('number');
  expect(gw.raw()).not.toContain(secret);
  expect(gw.raw()).not.toContain(gw.mgmtKey);
  expect(gw.raw()).not.toMatch(/authorization/i);
});

test('below info (LOG_LEVEL=warn) no access line is built, and the request is still counted', async () => {
  const stream = new PassThrough();
  let written = '';
  stream.on('data', (chunk: Buffer) => (written += chunk.toString()));
  const logger = createLogger('warn', stream);
  // winston would format the line and drop it in its transport: the level is checked before that.
  const info = jest.spyOn(logger, 'info');
  const deps = await assembleDeps(testConfig({ log: { level: 'warn' } }), db, new MemoryKv(`t:${uniqueId()}:`), {
    logger,
  });
  const org = await db.transaction((tx) => provisionOrg(tx, 'Quiet Org'));
  await flush();
  written = ''; // start-up warnings (no provider keys here) are not the request's
  await request(createApp(deps)).get('/api/v1/key').set('Authorization', bearer(org.secret)).expect(200);
  await flush();
  expect(info).not.toHaveBeenCalled();
  expect(written).toBe('');
  const res = await request(createMetricsApp(deps)).get('/metrics').expect(200);
  expect(res.text).toContain('switchyard_http_requests_total{route="/api/v1/key",method="GET",status_class="2xx"} 1');
});

test('metrics use route templates and status classes, never key hashes', async () => {
  const gw = await gatewayWithLogCapture();
  const { hash } = await createInferenceKey({ app: gw.app, mgmtKey: gw.mgmtKey });
  await request(gw.app).get(`/api/v1/keys/${hash}`).set('Authorization', bearer(gw.mgmtKey)).expect(200);
  await request(gw.app).get('/api/v1/nowhere').set('Authorization', bearer(gw.mgmtKey)).expect(404);
  await request(gw.app).get('/api/v1/key').expect(401);
  const res = await request(createMetricsApp(gw.deps)).get('/metrics').expect(200);
  expect(res.headers['content-type']).toMatch(/text\/plain/);
  expect(res.text).toContain(
    'switchyard_http_requests_total{route="/api/v1/keys/:hash",method="GET",status_class="2xx"} 1',
  );
  expect(res.text).toContain('switchyard_http_requests_total{route="unmatched",method="GET",status_class="4xx"} 1');
  expect(res.text).toContain('switchyard_http_requests_total{route="/api/v1/key",method="GET",status_class="4xx"} 1');
  expect(res.text).toContain('switchyard_http_request_duration_seconds_bucket');
  expect(res.text).toContain('switchyard_auth_failures_total{reason="missing"} 1');
  expect(res.text).not.toContain(hash);
  expect(res.text).not.toContain(gw.keyHash);
  await request(createMetricsApp(gw.deps)).get('/other').expect(404);
});

test('401s and 429s answered before the route runs are counted and logged under its template', async () => {
  const gw = await gatewayWithLogCapture(undefined, { rateLimit: { limit: 2, windowMs: 60000 } });
  const { hash } = await createInferenceKey({ app: gw.app, mgmtKey: gw.mgmtKey }); // 1st request of the window
  const path = `/api/v1/keys/${hash}`;
  await request(gw.app).get(path).expect(401);
  await request(gw.app).get(path).set('Authorization', 'Bearer sk-sy-v1-unknown').expect(401);
  await request(gw.app).get(path).set('Authorization', bearer(gw.mgmtKey)).expect(200); // 2nd
  await request(gw.app).get(path).set('Authorization', bearer(gw.mgmtKey)).expect(429);
  await request(gw.app).delete(path).set('Authorization', bearer(gw.mgmtKey)).expect(429);
  await request(gw.app).get('/api/v1/keys/a/b/c').set('Authorization', bearer(gw.mgmtKey)).expect(429); // no such route
  const res = await request(createMetricsApp(gw.deps)).get('/metrics').expect(200);
  const route = 'route="/api/v1/keys/:hash"';
  expect(res.text).toContain(`switchyard_http_requests_total{${route},method="GET",status_class="4xx"} 3`);
  expect(res.text).toContain(`switchyard_http_requests_total{${route},method="GET",status_class="2xx"} 1`);
  expect(res.text).toContain(`switchyard_http_requests_total{${route},method="DELETE",status_class="4xx"} 1`);
  expect(res.text).toContain('switchyard_http_requests_total{route="unmatched",method="GET",status_class="4xx"} 1');
  expect(res.text).not.toContain(hash);
  await flush();
  const statuses = gw.lines
    .filter((l) => l.message === 'request' && l.route === '/api/v1/keys/:hash')
    .map((l) => l.status);
  expect(statuses).toEqual([401, 401, 200, 429, 429]);
});

test('an unexpected error is logged with its message and stack, and answered as a bare 500', async () => {
  const own = await openTestPglite();
  let failing = false;
  const flaky = {
    ...own,
    query: ((sql: string, params?: readonly unknown[]) => {
      if (failing) return Promise.reject(new Error('synthetic failure in the keys query'));
      return own.query(sql, params);
    }) as typeof own.query,
  };
  try {
    const gw = await gatewayWithLogCapture(undefined, {}, flaky);
    await request(gw.app).get('/api/v1/keys').set('Authorization', bearer(gw.mgmtKey)).expect(200); // key now cached
    failing = true;
    const res = await request(gw.app)
      .get('/api/v1/keys')
      .set('Authorization', bearer(gw.mgmtKey))
      .set('X-Request-Id', 'req-500');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: 500, message: 'Internal Server Error' } });
    await flush();
    const line = gw.lines.find((l) => l.message === 'unhandled error');
    expect(line).toMatchObject({ level: 'error', request_id: 'req-500', route: '/api/v1/keys' });
    const error = line?.error as { name: string; message: string; stack: string };
    expect(error).toMatchObject({ name: 'Error', message: 'synthetic failure in the keys query' });
    expect(error.stack).toContain('synthetic failure in the keys query');
    expect(error.stack).toMatch(/\.(ts|js):\d+/);
    expect(gw.raw()).not.toContain(gw.mgmtKey);
  } finally {
    await own.close();
  }
});

test('/healthz and /readyz answer without credentials', async () => {
  const gw = await gatewayWithLogCapture();
  expect((await request(gw.app).get('/healthz')).body).toEqual({ status: 'ok' });
  const ready = await request(gw.app).get('/readyz').expect(200);
  expect(ready.body).toMatchObject({
    status: 'ready',
    checks: { database: { status: 'ok', kind: 'pglite' }, redis: { status: 'ok', kind: 'memory' } },
  });
});

test('/readyz is 503 while draining', async () => {
  const gw = await gatewayWithLogCapture();
  gw.deps.state.draining = true;
  const res = await request(gw.app).get('/readyz').expect(503);
  expect(res.body).toMatchObject({ status: 'not_ready', draining: true });
  await request(gw.app).get('/healthz').expect(200);
});

test('Redis unreachable: /readyz degraded (200) when the limiter fails open, 503 when it fails closed', async () => {
  const dead = await RedisKv.connect({ url: 'redis://127.0.0.1:1', prefix: 't:', commandTimeoutMs: 200 });
  try {
    const closed = await assembleDeps(testConfig({ rateLimit: { failMode: 'closed' } }), db, dead, {
      logger: createLogger('silent'),
    });
    const refused = await request(createApp(closed)).get('/readyz').expect(503);
    expect(refused.body).toMatchObject({ status: 'not_ready', checks: { redis: { status: 'down' } } });
    const gw = await gatewayWithLogCapture(dead as never);
    const res = await request(gw.app).get('/readyz').expect(200);
    expect(res.body.status).toBe('degraded');
    expect(res.body.checks.redis).toEqual({ status: 'down', kind: 'redis' });
    expect(res.body.checks.database.status).toBe('ok');
    await request(gw.app).get('/healthz').expect(200);
    const metrics = await gw.deps.metrics.registry.getSingleMetricAsString('switchyard_dependency_up');
    expect(metrics).toContain('switchyard_dependency_up{dependency="redis"} 0');
  } finally {
    await dead.close();
  }
});

test('a database outage answers 503 with Retry-After, never a 500', async () => {
  const own = await openTestPglite();
  let down = false;
  // The same database behind a switch: when down, every query fails as a refused connection does.
  const switchable = {
    ...own,
    query: ((sql: string, params?: readonly unknown[]) => {
      if (down)
        return Promise.reject(
          Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
        );
      return own.query(sql, params);
    }) as typeof own.query,
  };
  const deps = await assembleDeps(testConfig(), switchable, new MemoryKv(`t:${uniqueId()}:`), {
    logger: createLogger('silent'),
  });
  const org = await own.transaction((tx) => provisionOrg(tx, 'Outage Org'));
  const app = createApp(deps);
  await request(app).get('/api/v1/keys').set('Authorization', bearer(org.secret)).expect(200);
  down = true;
  const res = await request(app).get('/api/v1/keys').set('Authorization', bearer(org.secret));
  expect(res.status).toBe(503);
  expect(res.body.error).toMatchObject({ code: 503, message: 'Service temporarily unavailable' });
  expect(res.headers['retry-after']).toBe('1');
  down = false;
  await request(app).get('/api/v1/keys').set('Authorization', bearer(org.secret)).expect(200);
  await own.close();
});
