/**
 * Entry of the usage writer thread (started by `writer-thread.ts`): a {@link StreamOutbox}
 * consumer with its own Redis connection and Postgres pool, so that reading the usage stream,
 * decoding entries and inserting batches never run on the request thread's event loop. It
 * drains on its timer and when the request thread says a batch is waiting; it reports its
 * usage counters back, since the request thread serves `/metrics`.
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { RedisKv } from '../kv/redis';
import { openPostgres } from '../store/postgres';
import { createLogger } from '../observability/logger';
import { Metrics } from '../observability/metrics';
import { StreamOutbox } from './stream-outbox';
import type { CounterSnapshot, FromWriter, ToWriter, WriterData } from './writer-protocol';

/** This thread's usage counters, for the request thread to add to its own. */
async function counters(metrics: Metrics): Promise<CounterSnapshot[]> {
  const all = await metrics.registry.getMetricsAsJSON();
  return all
    .filter((m) => String(m.type) === 'counter' && m.name.startsWith('switchyard_usage_'))
    .map((m) => ({ name: m.name, values: m.values.map((v) => ({ labels: v.labels as Record<string, string>, value: v.value })) }));
}

async function run(data: WriterData): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('writer-worker: not started as a worker thread');
  const post = (message: FromWriter) => port.postMessage(message);
  const logger = createLogger(data.logLevel);
  const metrics = new Metrics();
  const kv = await RedisKv.connect(data.redis);
  const db = await openPostgres({ ...data.postgres, poolSize: 2 });
  const outbox = new StreamOutbox(kv.client, data.redis.prefix, { db, metrics, logger }, { ...data.usage, sweepIntervalMs: 0 });
  const report = setInterval(() => void counters(metrics).then((c) => post({ type: 'counters', counters: c })), data.usage.flushIntervalMs);
  report.unref();
  const close = async () => {
    clearInterval(report);
    await outbox.close();
    await Promise.allSettled([kv.close(), db.close()]);
  };

  port.on('message', (message: ToWriter) => {
    if (message.type === 'kick') {
      outbox.kick();
      return;
    }
    const work = message.type === 'flush' ? outbox.flush() : close();
    void work.then(
      async () => post({ type: 'done', id: message.id, counters: await counters(metrics) }),
      async (err: unknown) => post({ type: 'done', id: message.id, error: (err as Error).message, counters: await counters(metrics) }),
    ).then(() => {
      if (message.type === 'close') port.close();
    });
  });
}

run(workerData as WriterData).catch((err: unknown) => {
  // Reported to the request thread, which logs it and starts a new writer after a pause.
  parentPort?.postMessage({ type: 'failed', error: (err as Error).message } satisfies FromWriter);
  process.exit(1);
});
