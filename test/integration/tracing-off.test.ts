/**
 * Tracing off (no OTLP endpoint, or OTEL_SDK_DISABLED=true): the OpenTelemetry SDK is never
 * loaded, a caller's `traceparent` goes nowhere (no span, nothing sent upstream), and the access
 * line has no trace fields. The SDK modules are replaced by ones that fail when loaded, so any
 * code path that loads them fails this file.
 */
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { openTestPglite } from '../helpers/services';
import { bearer, createInferenceKey, testConfig } from '../helpers/gateway';
import { startFakeFleet, type FakeFleet } from '../fakes/providers';
import { FAST_UPSTREAM } from '../fakes/gateway-harness';
import { assembleDeps, closeDependencies, type AppDeps } from '../../src/deps';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/observability/logger';
import { provisionOrg } from '../../src/orgs/provision';
import { MemoryKv } from '../../src/kv/memory';

// Hoisted above the imports: loading any of these modules fails the file.
jest.mock('@opentelemetry/sdk-trace-base', () => {
  throw new Error('@opentelemetry/sdk-trace-base was loaded with tracing off');
});
jest.mock('@opentelemetry/exporter-trace-otlp-http', () => {
  throw new Error('@opentelemetry/exporter-trace-otlp-http was loaded with tracing off');
});
jest.mock('@opentelemetry/resources', () => {
  throw new Error('@opentelemetry/resources was loaded with tracing off');
});
jest.mock('@opentelemetry/core', () => {
  throw new Error('@opentelemetry/core was loaded with tracing off');
});

let fleet: FakeFleet;
let deps: AppDeps;
const lines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  fleet = await startFakeFleet();
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean))
      lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  // OTEL_SDK_DISABLED wins over an endpoint, as the specification says.
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' };
  expect(loadConfig(env).tracing.endpoint).toBeNull();
  const config = testConfig({
    ...fleet.overrides,
    upstream: FAST_UPSTREAM,
    log: { level: 'info' },
    tracing: { endpoint: loadConfig(env).tracing.endpoint },
  });
  deps = await assembleDeps(config, await openTestPglite(), new MemoryKv('t:tracing-off:'), {
    logger: createLogger('info', stream),
    random: () => 0,
  });
});

afterAll(async () => {
  if (deps) await closeDependencies(deps);
  await fleet.closeAll();
});

test('a request with a traceparent is served untraced: nothing sent upstream, no trace fields logged', async () => {
  expect(deps.tracing).toBeNull();
  const app = createApp(deps);
  const org = await deps.db.transaction((tx) => provisionOrg(tx, 'Untraced Org'));
  const { secret } = await createInferenceKey({ app, mgmtKey: org.secret });
  fleet.fakes.deepinfra!.setSticky({ status: 500 });
  await request(app)
    .post('/api/v1/embeddings')
    .set('Authorization', bearer(secret))
    .set('traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')
    .set('X-Request-Id', 'req-untraced')
    .send({ model: 'baai/bge-m3', input: 'hello' })
    .expect(200);
  for (const slug of ['deepinfra', 'nebius']) {
    expect(fleet.fakes[slug]!.calls).toHaveLength(1);
    expect(fleet.fakes[slug]!.calls[0]!.headers.traceparent).toBeUndefined();
  }
  await new Promise((resolve) => setImmediate(resolve));
  const line = lines.find((l) => l.request_id === 'req-untraced');
  expect(Object.keys(line ?? {}).sort()).toEqual([
    'aborted',
    'duration_ms',
    'level',
    'message',
    'method',
    'path',
    'request_id',
    'route',
    'service',
    'status',
    'timestamp',
    'workspace_id',
  ]);
});
