/**
 * OpenTelemetry tracing through HTTP, exported to a real OTLP/HTTP receiver on loopback: a request
 * carrying a W3C `traceparent` whose first provider fails and second answers. The spans arrive in
 * the caller's trace with the right parents, names, attributes and statuses (server span, auth,
 * rate limit, budget, two upstream attempts, usage write); each upstream received the trace; the
 * access log line carries the trace id; and the upstream latency histogram shows the trace id as
 * an OpenMetrics exemplar, while a Prometheus-format scrape stays as it was.
 */
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { openTestPglite } from '../helpers/services';
import { bearer, createInferenceKey, testConfig } from '../helpers/gateway';
import { startFakeFleet, type FakeFleet } from '../fakes/providers';
import { FAST_UPSTREAM } from '../fakes/gateway-harness';
import { OTLP, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../fakes/otlp-receiver';
import { assembleDeps, closeDependencies, type AppDeps } from '../../src/deps';
import { createApp, createMetricsApp } from '../../src/app';
import { createLogger } from '../../src/observability/logger';
import { provisionOrg } from '../../src/orgs/provision';
import { MemoryKv } from '../../src/kv/memory';
import type { Express } from 'express';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const OPENMETRICS =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

let receiver: OtlpReceiver;
let fleet: FakeFleet;
let deps: AppDeps;
let app: Express;
let key: string;
const lines: Array<Record<string, unknown>> = [];
let lineArrived: () => void = () => undefined;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  fleet = await startFakeFleet();
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean))
      lines.push(JSON.parse(line) as Record<string, unknown>);
    lineArrived();
  });
  const config = testConfig({
    ...fleet.overrides,
    upstream: FAST_UPSTREAM,
    breaker: { failureThreshold: 1000, cooldownMs: 1000 },
    log: { level: 'info' },
    tracing: { endpoint: receiver.url, serviceName: 'switchyard-test' },
    passthrough: { baseUrl: `${fleet.fakes.openai!.origin}/v1` },
  });
  const db = await openTestPglite();
  deps = await assembleDeps(config, db, new MemoryKv('t:tracing:'), {
    logger: createLogger('info', stream),
    random: () => 0,
  });
  app = createApp(deps);
  const org = await db.transaction((tx) => provisionOrg(tx, 'Tracing Org'));
  key = (await createInferenceKey({ app, mgmtKey: org.secret })).secret;
});

afterAll(async () => {
  if (deps) await closeDependencies(deps);
  await fleet.closeAll();
  await receiver.close();
});

/** The first log line `match` accepts, waiting for the logger's buffered write. */
async function lineWhere(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  while (!lines.some(match)) await new Promise<void>((resolve) => (lineArrived = resolve));
  return lines.find(match) as Record<string, unknown>;
}

/** The access line of `requestId`. */
const accessLine = (requestId: string) => lineWhere((l) => l.message === 'request' && l.request_id === requestId);

/** The spans of `traceId` the receiver holds once everything ended so far is exported. */
async function exported(traceId: string): Promise<ReceivedSpan[]> {
  await deps.tracing?.forceFlush();
  return receiver.spans.filter((s) => s.traceId === traceId);
}

describe('a traced embeddings request with a fallback', () => {
  let spans: ReceivedSpan[];
  let server: ReceivedSpan;
  let attempts: ReceivedSpan[];

  beforeAll(async () => {
    fleet.fakes.deepinfra!.setSticky({ status: 500 });
    const res = await request(app)
      .post('/api/v1/embeddings')
      .set('Authorization', bearer(key))
      .set('traceparent', `00-${TRACE_ID}-${CALLER_SPAN}-01`)
      .set('X-Request-Id', 'req-traced')
      .send({ model: 'baai/bge-m3', input: 'hello' });
    expect(res.status).toBe(200);
    expect(res.body.provider).toBe('Nebius AI Studio');
    spans = await exported(TRACE_ID);
    server = spans.find((s) => s.kind === OTLP.SERVER) as ReceivedSpan;
    attempts = spans.filter((s) => s.kind === OTLP.CLIENT);
  });

  test("the server span continues the caller's trace, named by method and route template", () => {
    expect(server).toMatchObject({
      traceId: TRACE_ID,
      parentSpanId: CALLER_SPAN,
      name: 'POST /api/v1/embeddings',
      statusCode: OTLP.STATUS_UNSET,
      scope: 'switchyard',
    });
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.path': '/api/v1/embeddings',
      'http.route': '/api/v1/embeddings',
      'http.response.status_code': 200,
      'switchyard.request_id': 'req-traced',
    });
    expect(server.resource['service.name']).toBe('switchyard-test');
    expect(receiver.contentTypes[0]).toMatch(/application\/json/);
  });

  test('auth, rate limit, budget and usage write are child spans of the server span', () => {
    const children = spans
      .filter((s) => s.parentSpanId === server.spanId && s.kind === OTLP.INTERNAL)
      .map((s) => s.name);
    expect(children.sort()).toEqual(['auth', 'budget.reserve', 'rate_limit', 'usage.record']);
    for (const s of spans.filter((x) => x.kind === OTLP.INTERNAL)) expect(s.statusCode).toBe(OTLP.STATUS_UNSET);
  });

  test('the fallback shows as two upstream attempts: the failed one, then the one that answered, with why it fell back', () => {
    expect(attempts).toHaveLength(2);
    const [failed, answered] = ['deepinfra', 'nebius'].map(
      (p) => attempts.find((a) => a.attributes['gen_ai.provider.name'] === p) as ReceivedSpan,
    );
    for (const a of [failed!, answered!]) {
      expect(a).toMatchObject({ parentSpanId: server.spanId, name: 'embeddings BAAI/bge-m3' });
      expect(a.attributes).toMatchObject({
        'gen_ai.operation.name': 'embeddings',
        'gen_ai.request.model': 'BAAI/bge-m3',
        'switchyard.model': 'baai/bge-m3',
        'server.address': '127.0.0.1',
      });
    }
    expect(failed!.statusCode).toBe(OTLP.STATUS_ERROR);
    expect(failed!.attributes).toMatchObject({
      'http.response.status_code': 500,
      'error.type': 'server',
      'switchyard.upstream.outcome': 'server',
    });
    expect(failed!.attributes['switchyard.fallback.reason']).toBeUndefined();
    expect(answered!.statusCode).toBe(OTLP.STATUS_UNSET);
    expect(answered!.attributes).toMatchObject({
      'http.response.status_code': 200,
      'switchyard.upstream.outcome': 'ok',
      'switchyard.fallback.reason': 'server',
      'gen_ai.usage.input_tokens': expect.any(Number),
    });
    expect(answered!.attributes['error.type']).toBeUndefined();
  });

  test('each upstream received a traceparent of the same trace, naming its attempt span as parent', () => {
    const sent = (provider: string) => fleet.fakes[provider]!.calls.at(-1)?.headers.traceparent;
    const spanOf = (provider: string) =>
      attempts.find((a) => a.attributes['gen_ai.provider.name'] === provider)!.spanId;
    expect(sent('deepinfra')).toBe(`00-${TRACE_ID}-${spanOf('deepinfra')}-01`);
    expect(sent('nebius')).toBe(`00-${TRACE_ID}-${spanOf('nebius')}-01`);
  });

  test('the access log line carries the trace id and the server span id', async () => {
    expect(await accessLine('req-traced')).toMatchObject({
      trace_id: TRACE_ID,
      span_id: server.spanId,
      route: '/api/v1/embeddings',
      status: 200,
    });
  });

  test('the upstream latency histogram carries the trace id as an OpenMetrics exemplar; the Prometheus format is unchanged', async () => {
    const metricsApp = createMetricsApp(deps);
    const om = await request(metricsApp).get('/metrics').set('Accept', OPENMETRICS).expect(200);
    expect(om.headers['content-type']).toMatch(/^application\/openmetrics-text; version=1\.0\.0/);
    expect(om.text).toMatch(
      new RegExp(
        `switchyard_upstream_request_duration_seconds_bucket\\{le="[^"]+",provider="nebius",model="baai/bge-m3"\\} 1 # \\{trace_id="${TRACE_ID}"\\} [0-9.e-]+ [0-9.]+`,
      ),
    );
    expect(om.text).toMatch(/switchyard_http_requests_total\{/);
    expect(om.text.endsWith('# EOF\n')).toBe(true);
    // The OpenMetrics render must not leave prom-client's counters renamed for the next plain scrape.
    const plain = await request(metricsApp).get('/metrics').expect(200);
    expect(plain.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(plain.text).toContain('# TYPE switchyard_http_requests_total counter');
    expect(plain.text).toMatch(
      /switchyard_upstream_requests_total\{provider="nebius",model="baai\/bge-m3",outcome="ok"\} 1/,
    );
    expect(plain.text).not.toContain('trace_id');
  });
});

test('a request failing with 502 ends its server span as an error; a 401 is no server error but its auth span is', async () => {
  const traceId = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2';
  for (const slug of ['deepinfra', 'nebius', 'together']) fleet.fakes[slug]!.setSticky({ status: 500 });
  await request(app)
    .post('/api/v1/embeddings')
    .set('Authorization', bearer(key))
    .set('traceparent', `00-${traceId}-${CALLER_SPAN}-01`)
    .send({ model: 'baai/bge-m3', input: 'x' })
    .expect(502);
  const failed = await exported(traceId);
  expect(failed.find((s) => s.kind === OTLP.SERVER)).toMatchObject({
    statusCode: OTLP.STATUS_ERROR,
    attributes: expect.objectContaining({ 'http.response.status_code': 502, 'error.type': '502' }),
  });
  expect(failed.filter((s) => s.kind === OTLP.CLIENT).map((s) => s.attributes['switchyard.fallback.reason'])).toEqual([
    undefined,
    'server',
    'server',
  ]);

  const refusedId = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa3';
  await request(app)
    .post('/api/v1/embeddings')
    .set('Authorization', 'Bearer sk-sy-v1-nobody')
    .set('traceparent', `00-${refusedId}-${CALLER_SPAN}-01`)
    .send({})
    .expect(401);
  const refused = await exported(refusedId);
  expect(refused.find((s) => s.kind === OTLP.SERVER)).toMatchObject({
    statusCode: OTLP.STATUS_UNSET,
    attributes: expect.objectContaining({ 'http.response.status_code': 401 }),
  });
  expect(refused.find((s) => s.name === 'auth')).toMatchObject({
    statusCode: OTLP.STATUS_ERROR,
    attributes: expect.objectContaining({ 'error.type': 'AuthenticationError' }),
  });
});

test('without a traceparent the request starts a new trace, and health checks make none', async () => {
  fleet.resetAll();
  const before = receiver.spans.length;
  await request(app).get('/healthz').expect(200);
  const res = await request(app)
    .get('/api/v1/embeddings/models')
    .set('Authorization', bearer(key))
    .set('X-Request-Id', 'req-fresh')
    .expect(200);
  expect(res.status).toBe(200);
  await deps.tracing?.forceFlush();
  const fresh = receiver.spans.slice(before);
  const server = fresh.filter((s) => s.kind === OTLP.SERVER);
  expect(server).toHaveLength(1);
  expect(server[0]).toMatchObject({ name: 'GET /api/v1/embeddings/models', parentSpanId: '' });
  expect(server[0]!.traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(await accessLine('req-fresh')).toMatchObject({ trace_id: server[0]!.traceId });
});

test("a passthrough call carries the request's trace to its upstream, in place of the client's own traceparent", async () => {
  const traceId = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa4';
  fleet.resetAll();
  fleet.fakes.openai!.queue({ status: 200, body: { id: 'chatcmpl-1', choices: [] } });
  await request(app)
    .post('/api/v1/completions')
    .set('Authorization', bearer(key))
    .set('traceparent', `00-${traceId}-${CALLER_SPAN}-01`)
    .send({ model: 'm', messages: [] })
    .expect(200);
  const server = (await exported(traceId)).find((s) => s.kind === OTLP.SERVER);
  expect(server).toMatchObject({ name: 'POST /api/v1/completions', parentSpanId: CALLER_SPAN });
  expect(fleet.fakes.openai!.calls.at(-1)?.headers.traceparent).toBe(`00-${traceId}-${server!.spanId}-01`);
});

test('a traced chat request: a CLIENT span per upstream attempt, streamed or not, its context passed to the provider', async () => {
  for (const stream of [false, true]) {
    const traceId = stream ? 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaac2' : 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaac1';
    fleet.resetAll();
    fleet.fakes.deepinfra!.setSticky({ status: 500 });
    const res = await request(app)
      .post('/api/v1/chat/completions')
      .set('Authorization', bearer(key))
      .set('traceparent', `00-${traceId}-${CALLER_SPAN}-01`)
      .send({ model: 'meta-llama/llama-3.3-70b-instruct', stream, messages: [{ role: 'user', content: 'hello' }] });
    expect(res.status).toBe(200);
    const spans = await exported(traceId);
    const server = spans.find((s) => s.kind === OTLP.SERVER)!;
    const attempts = spans.filter((s) => s.kind === OTLP.CLIENT);
    expect(
      attempts.map((a) => [a.attributes['gen_ai.provider.name'], a.attributes['switchyard.upstream.outcome']]),
    ).toEqual([
      ['deepinfra', 'server'],
      ['groq', 'ok'],
    ]);
    for (const a of attempts)
      expect(a).toMatchObject({
        parentSpanId: server.spanId,
        attributes: { 'gen_ai.operation.name': 'chat', 'switchyard.model': 'meta-llama/llama-3.3-70b-instruct' },
      });
    expect(
      spans
        .filter((s) => s.parentSpanId === server.spanId && s.kind === OTLP.INTERNAL)
        .map((s) => s.name)
        .sort(),
    ).toEqual(['auth', 'budget.reserve', 'rate_limit', 'usage.record']);
    const answered = attempts[1]!;
    expect(answered.attributes['switchyard.fallback.reason']).toBe('server');
    expect(fleet.fakes.groq!.calls.at(-1)?.headers.traceparent).toBe(`00-${traceId}-${answered.spanId}-01`);
  }
});

describe('sampling (OTEL_TRACES_SAMPLER=parentbased_traceidratio, OTEL_TRACES_SAMPLER_ARG=0)', () => {
  let sampled: AppDeps;
  let sampledApp: Express;
  let sampledKey: string;
  beforeAll(async () => {
    const db = await openTestPglite();
    const config = testConfig({
      ...fleet.overrides,
      upstream: FAST_UPSTREAM,
      tracing: { endpoint: receiver.url, sampler: 'parentbased_traceidratio', samplerArg: 0 },
    });
    sampled = await assembleDeps(config, db, new MemoryKv('t:tracing-sampled:'), {
      logger: createLogger('silent'),
      random: () => 0,
    });
    sampledApp = createApp(sampled);
    const org = await db.transaction((tx) => provisionOrg(tx, 'Sampled Org'));
    sampledKey = (await createInferenceKey({ app: sampledApp, mgmtKey: org.secret })).secret;
  });
  afterAll(async () => {
    if (sampled) await closeDependencies(sampled);
  });

  test("a sampled caller's trace is recorded; a trace the gateway starts (ratio 0) is not, yet the upstream still gets its context, unsampled", async () => {
    fleet.resetAll();
    const followed = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa5';
    const post = (headers: Record<string, string>) =>
      request(sampledApp)
        .post('/api/v1/embeddings')
        .set('Authorization', bearer(sampledKey))
        .set(headers)
        .send({ model: 'baai/bge-m3', input: 'x' })
        .expect(200);
    await post({ traceparent: `00-${followed}-${CALLER_SPAN}-01` });
    const before = receiver.spans.length;
    await post({});
    await sampled.tracing?.forceFlush();
    expect(receiver.spans.filter((s) => s.traceId === followed).map((s) => s.name)).toContain(
      'POST /api/v1/embeddings',
    );
    expect(receiver.spans.slice(before).filter((s) => s.traceId !== followed)).toEqual([]);
    const sent = fleet.fakes.deepinfra!.calls.map((c) => c.headers.traceparent);
    expect(sent[0]).toMatch(new RegExp(`^00-${followed}-[0-9a-f]{16}-01$`));
    expect(sent[1]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    const om = await request(createMetricsApp(sampled)).get('/metrics').set('Accept', OPENMETRICS).expect(200);
    const exemplars = om.text.split('\n').filter((l) => l.includes('# {trace_id='));
    expect(exemplars).toHaveLength(1);
    expect(exemplars[0]).toContain(followed);
  });
});

test('exports the receiver refuses are counted and logged once, and the recovery is logged', async () => {
  const exportFailures = async () => (await deps.metrics.traceExportFailures.get()).values[0]?.value ?? 0;
  const traced = () => request(app).get('/api/v1/embeddings/models').set('Authorization', bearer(key)).expect(200);
  const before = await exportFailures();
  receiver.refuseWith = 400;
  try {
    for (let i = 0; i < 2; i++) {
      await traced();
      await deps.tracing?.forceFlush().catch(() => undefined);
    }
  } finally {
    receiver.refuseWith = null;
  }
  expect(await exportFailures()).toBe(before + 2);
  await traced();
  await deps.tracing?.forceFlush();
  expect(await lineWhere((l) => l.message === 'trace export recovered')).toMatchObject({
    level: 'info',
    failed_batches: 2,
  });
  const warnings = lines.filter((l) => String(l.message).startsWith('trace export failed'));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({
    level: 'warn',
    spans: expect.any(Number),
    err: expect.objectContaining({ message: expect.any(String) }),
  });
});
