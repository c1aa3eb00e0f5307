/**
 * The store clients' `error` events reach the connection-error hook (which deps wire to the
 * rate-limited log and the metric): Redis refusing connections, and Postgres connections cut by
 * a TCP proxy while idle in the pool.
 */
import { PassThrough } from 'node:stream';
import { types } from 'node:util';
import { DATABASE_URL, describeIf, seededDataDir, uniqueId } from '../helpers/services';
import { tcpProxy } from '../../testkit/tcp-proxy';
import { RedisKv } from '../../src/kv/redis';
import { openPostgres } from '../../src/store/postgres';
import { openDependencies } from '../../src/deps';
import { createLogger } from '../../src/observability/logger';
import { Metrics } from '../../src/observability/metrics';
import { testConfig } from '../helpers/gateway';
import { until as pollUntil } from '../helpers/eventually';

/** Poll until `fn` holds (or give up after 10 s). */
const until = (fn: () => boolean) => pollUntil('the condition', fn, { timeoutMs: 10_000 });

test('Redis: connection errors of the client and of the subscriber are reported', async () => {
  const errors: Error[] = [];
  const kv = await RedisKv.connect(
    { url: 'redis://127.0.0.1:1', prefix: 't:', commandTimeoutMs: 200 },
    { onConnectionError: (err) => errors.push(err) },
  );
  // Not confirmed while Redis is unreachable: only the subscriber's connection matters here.
  const subscribing = kv.subscribe('channel', () => undefined).catch(() => undefined);
  try {
    await expect(kv.ping()).rejects.toThrow();
    await until(() => errors.length >= 2);
    // Node's own errors come from outside the test runner's realm: checked as native errors.
    expect(types.isNativeError(errors[0])).toBe(true);
    expect((errors[0] as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  } finally {
    await kv.close();
    await subscribing;
  }
});

describeIf(DATABASE_URL)('Postgres', () => {
  test('idle pooled connections cut by the network are reported', async () => {
    const target = new URL(DATABASE_URL as string);
    const proxy = await tcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.open();
    const url = new URL(DATABASE_URL as string);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    const errors: Error[] = [];
    const schema = `t_${uniqueId()}`;
    const db = await openPostgres(
      { url: url.toString(), schema, poolSize: 2 },
      { onConnectionError: (err) => errors.push(err) },
    );
    try {
      await Promise.all([db.ping(), db.ping()]); // two connections, now idle in the pool
      await proxy.close();
      await until(() => errors.length >= 1);
      expect(types.isNativeError(errors[0])).toBe(true);
      await proxy.open();
      await db.ping(); // the pool reconnects
    } finally {
      await proxy.open();
      await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await db.close();
      await proxy.close();
    }
  });
});

test('openDependencies wires Redis connection errors to a warning and the metric', async () => {
  const stream = new PassThrough();
  let written = '';
  stream.on('data', (chunk: Buffer) => void (written += chunk.toString('utf8')));
  const metrics = new Metrics();
  // A migrated data dir from the suite's archive: initdb and every migration took most of the 30 s on a busy machine.
  const config = testConfig({
    redis: { url: 'redis://127.0.0.1:1' },
    database: { dataDir: await seededDataDir('sy-connerr-') },
  });
  const deps = await openDependencies(config, { logger: createLogger('warn', stream), metrics });
  try {
    await until(() => written.includes('redis connection error'));
    const line = JSON.parse(written.split('\n').find((l) => l.includes('redis connection error')) as string) as Record<
      string,
      unknown
    >;
    expect(line).toMatchObject({
      level: 'warn',
      store: 'redis',
      err: { code: 'ECONNREFUSED', message: expect.stringContaining('ECONNREFUSED') },
    });
    expect(await metrics.registry.getSingleMetricAsString('switchyard_store_connection_errors_total')).toMatch(
      /switchyard_store_connection_errors_total\{store="redis"\} [1-9]/,
    );
    // Booted all the same: the caches' invalidation subscriptions wait for Redis, and say so (the
    // line leaves with the others of its event-loop turn).
    await until(() => written.includes('cache invalidations are not subscribed yet'));
    expect(written).toContain('cache invalidations are not subscribed yet; they take effect once Redis is reachable');
  } finally {
    // Not closeDependencies: its usage flush would wait out its timeout against the dead Redis.
    await deps.recorder.close().catch(() => undefined);
    await Promise.allSettled([deps.kv.close(), deps.db.close(), deps.routing.close()]);
  }
});
