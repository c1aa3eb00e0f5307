/**
 * Store connection errors are logged at a rate-limited warning (one line per store per interval,
 * with the count left out since the last) and every one is counted. Injected clock, real logger.
 */
import { PassThrough } from 'node:stream';
import { createLogger } from '../../src/observability/logger';
import { Metrics } from '../../src/observability/metrics';
import { ConnectionErrorLog } from '../../src/observability/connection-errors';

function setup() {
  const stream = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  stream.on('data', (chunk: Buffer) => {
    for (const l of chunk.toString('utf8').split('\n'))
      if (l.trim() !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
  });
  const metrics = new Metrics();
  let now = 1_000_000;
  const log = new ConnectionErrorLog(createLogger('warn', stream), metrics, { intervalMs: 10_000, now: () => now });
  return { log, metrics, lines, advance: (ms: number) => void (now += ms) };
}

const delivered = () => new Promise((resolve) => setImmediate(resolve));
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });

test('one line per store per interval, naming how many were left out; every error counted', async () => {
  const { log, metrics, lines, advance } = setup();
  for (let i = 0; i < 25; i++) {
    log.report('redis', refused());
    advance(200); // 25 errors over 5 s
  }
  await delivered();
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({
    level: 'warn',
    message: 'redis connection error',
    store: 'redis',
    suppressed_since_last: 0,
    err: { message: 'connect ECONNREFUSED 127.0.0.1:6379', code: 'ECONNREFUSED' },
  });
  expect(String((lines[0]!.err as { stack: string }).stack)).toContain('ECONNREFUSED');
  advance(5_000);
  log.report('redis', refused());
  await delivered();
  expect(lines).toHaveLength(2);
  expect(lines[1]).toMatchObject({ store: 'redis', suppressed_since_last: 24 });
  const text = await metrics.registry.getSingleMetricAsString('switchyard_store_connection_errors_total');
  expect(text).toContain('switchyard_store_connection_errors_total{store="redis"} 26');
});

test('each store has its own allowance', async () => {
  const { log, metrics, lines } = setup();
  log.report('redis', refused());
  log.report('postgres', new Error('Connection terminated unexpectedly'));
  log.report('postgres', new Error('Connection terminated unexpectedly'));
  await delivered();
  expect(lines.map((l) => l.store)).toEqual(['redis', 'postgres']);
  expect(await metrics.registry.getSingleMetricAsString('switchyard_store_connection_errors_total')).toContain(
    'switchyard_store_connection_errors_total{store="postgres"} 2',
  );
});
