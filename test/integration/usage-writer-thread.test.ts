/**
 * The usage writer thread (Redis + Postgres): events XADDed on the request thread are written
 * by the thread's own connections (the request thread inserts nothing), exactly once; a full
 * batch wakes it without waiting for its timer; its usage counters reach the request thread's
 * `/metrics` registry; a thread that dies is restarted and what it had read is reclaimed, not
 * lost; a thread that cannot start is reported and retried.
 */
import { randomUUID } from 'node:crypto';
import { usageEvent } from '../helpers/usage-events';
import { PassThrough } from 'node:stream';
import { DATABASE_URL, REDIS_URL, TS_LOADER, describeIf, openTestPostgres, openTestRedisKv } from '../helpers/services';
import type { Database } from '../../src/store/db';
import type { RedisKv } from '../../src/kv/redis';
import { Metrics } from '../../src/observability/metrics';
import { createLogger, type Logger } from '../../src/observability/logger';
import type { StreamOutboxOptions } from '../../src/usage/stream-outbox';
import { ThreadedStreamOutbox } from '../../src/usage/writer-thread';

/** Counts the inserts and COPYs made through it (the request thread's own database handle). */
class CountingDb implements Pick<Database, 'query' | 'copyIn'> {
  inserts = 0;
  constructor(private readonly inner: Database) {}
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    if (sql.startsWith('INSERT INTO generations')) this.inserts++;
    return this.inner.query<T>(sql, params);
  }
  copyIn(table: string, columns: readonly string[], chunks: ReadonlyArray<Buffer | string>): Promise<void> {
    this.inserts++;
    return this.inner.copyIn(table, columns, chunks);
  }
}


async function eventually(check: () => Promise<boolean>, ms = 8000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describeIf(REDIS_URL && DATABASE_URL)('usage writer thread', () => {
  let db: Database;
  let kv: RedisKv;
  const outboxes: ThreadedStreamOutbox[] = [];
  beforeAll(async () => {
    db = await openTestPostgres();
    kv = await openTestRedisKv();
  });
  afterEach(async () => {
    for (const o of outboxes.splice(0)) await o.close();
  });
  afterAll(async () => {
    await kv.close();
    await db.close();
  });

  const rowsOf = async (orgId: string) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM generations WHERE org_id = $1', [orgId]))[0]!.n;

  function threaded(opts: Partial<StreamOutboxOptions> = {}, logger: Logger = createLogger('silent'), postgresUrl = db.connection!.url) {
    const local = new CountingDb(db);
    const metrics = new Metrics();
    const options: StreamOutboxOptions = {
      batchSize: 10, flushIntervalMs: 60_000, maxQueued: 1000, claimIdleMs: 1000, retryMaxMs: 200, retryInitialMs: 20, flushTimeoutMs: 8000, ...opts,
    };
    const data = { redis: kv.options, postgres: { ...db.connection!, url: postgresUrl }, logLevel: 'silent' };
    const outbox = new ThreadedStreamOutbox(kv.client, kv.prefix, { db: local, metrics, logger }, options, { data, preload: TS_LOADER });
    outboxes.push(outbox);
    return { outbox, local, metrics };
  }

  test('the thread writes every event exactly once; the request thread inserts nothing; counters are relayed', async () => {
    const { outbox, local, metrics } = threaded();
    const orgId = randomUUID();
    const events = Array.from({ length: 25 }, (_, i) => usageEvent(orgId, i));
    await Promise.all(events.map((e) => outbox.record(e)));
    await outbox.record(events[3]!); // a duplicate id is written once
    await outbox.flush();
    expect(await rowsOf(orgId)).toBe(25);
    expect(local.inserts).toBe(0);
    const written = (await metrics.usageEventsWritten.get()).values.reduce((n, v) => n + v.value, 0);
    expect(written).toBeGreaterThanOrEqual(25);
    expect((await metrics.usageEventsRecorded.get()).values.reduce((n, v) => n + v.value, 0)).toBe(26);
  });

  test('a full batch wakes the thread (its timer is a minute away)', async () => {
    const { outbox } = threaded({ batchSize: 10 });
    const orgId = randomUUID();
    await Promise.all(Array.from({ length: 10 }, (_, i) => outbox.record(usageEvent(orgId, i))));
    await eventually(async () => (await rowsOf(orgId)) === 10);
  });

  test('a thread that dies is restarted; what it had read is reclaimed and written once', async () => {
    const { outbox } = threaded();
    const orgId = randomUUID();
    await Promise.all(Array.from({ length: 8 }, (_, i) => outbox.record(usageEvent(orgId, i))));
    const thread = (outbox as unknown as { thread: { worker?: { terminate(): Promise<number> } } }).thread;
    await thread.worker!.terminate();
    await Promise.all(Array.from({ length: 8 }, (_, i) => outbox.record(usageEvent(orgId, 100 + i))));
    await eventually(async () => thread.worker !== undefined);
    await outbox.flush();
    expect(await rowsOf(orgId)).toBe(16);
  });

  test('a thread that cannot reach Postgres at start is reported and started again', async () => {
    const lines: string[] = [];
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    const logger = createLogger('error', stream);
    const { outbox } = threaded({}, logger, 'postgres://nobody@127.0.0.1:1/none');
    await eventually(async () => lines.filter((l) => l.includes('usage writer thread exited; restarting')).length >= 2, 10_000);
    expect(lines.some((l) => l.includes('usage writer thread could not start'))).toBe(true);
    expect(lines.join('\n')).not.toContain('nobody@');
    await expect(outbox.flush()).rejects.toThrow();
  });
});
