/**
 * The usage outbox against every database × every Kv: events land exactly once, in batches;
 * a database outage delays them and loses none; with Redis, entries a crashed replica read but
 * never acknowledged are reclaimed by another and not double counted; the in-process queue
 * applies backpressure when full instead of dropping.
 */
import { randomUUID } from 'node:crypto';
import { eventually } from '../helpers/eventually';
import { usageEvent } from '../helpers/usage-events';
import { DATABASES, KVS } from '../helpers/services';
import { testConfig } from '../helpers/gateway';
import type { Database, Queryable } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';
import type { RedisKv } from '../../src/kv/redis';
import type { Redis } from 'ioredis';
import { Metrics } from '../../src/observability/metrics';
import { createLogger } from '../../src/observability/logger';
import { createUsageRecorder, PGLITE_MAX_BATCH } from '../../src/usage/recorder';
import { MemoryOutbox } from '../../src/usage/memory-outbox';
import {
  StreamOutbox,
  USAGE_CONSUMER_GROUP,
  USAGE_DEAD_LETTER_KEY,
  USAGE_STREAM_KEY,
  type StreamOutboxOptions,
} from '../../src/usage/stream-outbox';
import type { OutboxOptions, OutboxRecorder } from '../../src/usage/outbox';
import type { UsageEvent, UsageRecorder } from '../../src/usage/types';
import { insertUsageEvents } from '../../src/usage/direct-recorder';

/** What an outbox writes through. */
type UsageDb = Queryable;

/**
 * The real database, whose usage INSERTs can be made to fail, or to "crash" after committing,
 * and are counted: rows per INSERT in `inserts`.
 */
class FlakyDb implements UsageDb {
  failing = false;
  crashAfterCommit = false;
  inserts: number[] = [];
  constructor(
    private readonly inner: UsageDb,
    /** Poses as this kind of database (createUsageRecorder sizes batches by it). */
    readonly kind?: Database['kind'],
  ) {}
  async query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    if (this.failing) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
    const rows = await this.inner.query<T>(sql, params);
    // Rows per INSERT: its one parameter is the batch as a JSON array.
    if (sql.startsWith('INSERT INTO generations')) {
      this.inserts.push((JSON.parse(String(params?.[0])) as unknown[]).length);
      if (this.crashAfterCommit) throw new Error('process died after commit, before XACK');
    }
    return rows;
  }
}

const logger = createLogger('silent');
/**
 * How long a wait for records to land may take: far below the outbox's own timers in these tests
 * (a 60 s flush interval and claim idle), so only the path under test can meet it, and far above
 * what a busy machine takes (1-2 s bounds failed there).
 */
const SETTLE_MS = 10_000;

describe.each(DATABASES)('usage outbox on $name', (dbKind) => {
  let db: Database;
  beforeAll(async () => {
    db = await dbKind.open();
  });
  afterAll(async () => {
    await db.close();
  });

  const rowsOf = async (orgId: string) =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM generations WHERE org_id = $1', [orgId]))[0]!.n;

  test('every column survives the JSON batch insert: quotes, backslashes, braces, commas, NULLs, unicode, exponents', async () => {
    const orgId = randomUUID();
    const tricky: UsageEvent = {
      ...usageEvent(orgId, 7),
      createdAt: new Date(Date.UTC(2026, 10, 22, 8, 0, 7, 123)),
      endUser: 'he said "hi", then {left}\\ \\"x',
      sessionId: 'NULL',
      upstreamId: null,
      userAgent: "ünïcødé 🐑 , ; ' tab\there",
      httpReferer: '',
      appTitle: '{"a":[1,2]}',
      costUsd: 1.5e-300,
      tokensPrompt: 2147483647,
    };
    await insertUsageEvents(db, [tricky, usageEvent(orgId, 8)]);
    await insertUsageEvents(db, [tricky]); // idempotent
    const rows = await db.query<Record<string, unknown>>(
      'SELECT id, created_at, end_user, session_id, upstream_id, user_agent, http_referer, app_title, cost_usd, tokens_prompt::float8 AS tokens_prompt FROM generations WHERE org_id = $1 ORDER BY id',
      [orgId],
    );
    expect(rows).toHaveLength(2);
    const row = rows.find((r) => r.id === tricky.id)!;
    expect(new Date(row.created_at as string).toISOString()).toBe('2026-11-22T08:00:07.123Z');
    expect({ ...row, created_at: undefined }).toEqual({
      id: tricky.id,
      created_at: undefined,
      end_user: tricky.endUser,
      session_id: 'NULL',
      upstream_id: null,
      user_agent: tricky.userAgent,
      http_referer: '',
      app_title: tricky.appTitle,
      cost_usd: 1.5e-300,
      tokens_prompt: 2147483647,
    });
  });

  test('a batch holding ids already written lands its new events and leaves the written ones as they were', async () => {
    const orgId = randomUUID();
    const first = usageEvent(orgId, 9);
    await insertUsageEvents(db, [first]);
    const again = { ...first, tokensPrompt: 999 };
    await insertUsageEvents(db, [usageEvent(orgId, 10), again, usageEvent(orgId, 11)]);
    expect(await rowsOf(orgId)).toBe(3);
    const row = (
      await db.query<{ tokens_prompt: number }>(
        'SELECT tokens_prompt::float8 AS tokens_prompt FROM generations WHERE id = $1',
        [first.id],
      )
    )[0]!;
    expect(row.tokens_prompt).toBe(first.tokensPrompt);
  });

  describe.each(KVS)('with $name kv', (kvKind) => {
    let kv: Kv;
    const recorders: UsageRecorder[] = [];
    beforeAll(async () => {
      kv = await kvKind.open();
    });
    // Every outbox on one Redis prefix is a replica of the same consumer group: stop each test's
    // replicas so they do not drain the next test's events.
    afterEach(async () => {
      jest.useRealTimers();
      for (const r of recorders.splice(0)) await r.close();
    });
    afterAll(async () => {
      await kv.close();
    });

    /** An outbox of this kind; with Redis, over `redis` (default: the Kv's own client). */
    function outbox(
      q: UsageDb,
      opts: Partial<StreamOutboxOptions> = {},
      metrics = new Metrics(),
      redis?: Redis,
    ): OutboxRecorder {
      const options: OutboxOptions = {
        batchSize: 5,
        flushIntervalMs: 60_000,
        maxQueued: 1000,
        claimIdleMs: 60_000,
        retryMaxMs: 50,
        retryInitialMs: 5,
        flushTimeoutMs: 5000,
        ...opts,
      };
      const deps = { db: q, metrics, logger };
      const r =
        kv.kind === 'redis'
          ? new StreamOutbox(redis ?? (kv as RedisKv).connection, kv.prefix, deps, options)
          : new MemoryOutbox(deps, options);
      recorders.push(r);
      return r;
    }

    test('createUsageRecorder picks the outbox of the Kv kind', () => {
      const r = createUsageRecorder(testConfig(), kv, { db, metrics: new Metrics(), logger });
      recorders.push(r);
      expect(r).toBeInstanceOf(kv.kind === 'redis' ? StreamOutbox : MemoryOutbox);
    });

    test('createUsageRecorder caps batches at PGLITE_MAX_BATCH on embedded PGlite, not on Postgres', async () => {
      const config = testConfig({ usage: { batchSize: 200 } });
      for (const kind of ['pglite', 'postgres'] as const) {
        const orgId = randomUUID();
        const counting = new FlakyDb(db, kind);
        const r = createUsageRecorder(config, kv, { db: counting, metrics: new Metrics(), logger }) as OutboxRecorder;
        recorders.push(r);
        await Promise.all(Array.from({ length: 120 }, (_, i) => r.record(usageEvent(orgId, i))));
        await r.flush();
        expect(await rowsOf(orgId)).toBe(120);
        const largest = Math.max(...counting.inserts);
        if (kind === 'pglite') expect(largest).toBeLessThanOrEqual(PGLITE_MAX_BATCH);
        else expect(largest).toBeGreaterThan(PGLITE_MAX_BATCH);
        await r.close();
      }
    });

    test('a batch-full drain stops after its first partial batch instead of chasing arrivals with tiny inserts', async () => {
      const orgId = randomUUID();
      let arrived = 0;
      const late: { r?: OutboxRecorder } = {};
      // Three more events arrive while each insert runs (at most 30): a steady trickle.
      const arrive = async () => {
        if (arrived >= 30) return;
        const next = [0, 1, 2].map((i) => usageEvent(orgId, 100 + arrived + i));
        arrived += 3;
        await Promise.all(next.map((e) => late.r!.record(e)));
      };
      const trickle: UsageDb = {
        async query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]) {
          const rows = await db.query<T>(sql, params);
          if (sql.startsWith('INSERT INTO generations')) await arrive();
          return rows;
        },
      };
      const counting = new FlakyDb(trickle);
      const r = outbox(counting, { batchSize: 10 });
      late.r = r;
      await Promise.all(Array.from({ length: 10 }, (_, i) => r.record(usageEvent(orgId, i))));
      await eventually(async () => expect(await rowsOf(orgId)).toBeGreaterThanOrEqual(13));
      await r.close(); // waits for the drain under way (and stops the timer): nothing else is written meanwhile
      // The full batch, then what arrived during it, then stop: the rest waits for a tick or a full batch.
      expect(counting.inserts).toEqual([10, 3]);
      expect(await rowsOf(orgId)).toBe(13);
      await r.flush();
      expect(await rowsOf(orgId)).toBe(10 + arrived);
    });

    test('events land exactly once, in batches of at most batchSize, after flush', async () => {
      const orgId = randomUUID();
      const flaky = new FlakyDb(db);
      const metrics = new Metrics();
      const r = outbox(flaky, {}, metrics);
      const events = Array.from({ length: 12 }, (_, i) => usageEvent(orgId, i));
      for (const e of events) await r.record(e);
      await r.flush();
      expect(await rowsOf(orgId)).toBe(12);
      expect(Math.max(...flaky.inserts)).toBeLessThanOrEqual(5);
      expect(flaky.inserts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(12);
      expect(flaky.inserts.length).toBeLessThan(12);
      expect(await r.depth()).toBe(0);
      const text = await metrics.registry.metrics();
      expect(text).toMatch(new RegExp(`switchyard_usage_events_recorded_total\\{outbox="${kv.kind}"\\} 12`));
      expect(text).toMatch(/switchyard_usage_queue_depth 0/);
      const row = (
        await db.query<{ tokens_prompt: number; cost_usd: number; created_at: Date }>(
          'SELECT tokens_prompt::float8 AS tokens_prompt, cost_usd, created_at FROM generations WHERE id = $1',
          [events[3]!.id],
        )
      )[0]!;
      expect(row.tokens_prompt).toBe(13);
      expect(row.cost_usd).toBeCloseTo(13 * 2e-8, 15);
      expect(new Date(row.created_at).toISOString()).toBe(events[3]!.createdAt.toISOString());
    });

    test('a full batch is written without waiting for the timer or a flush', async () => {
      const orgId = randomUUID();
      const r = outbox(db, { batchSize: 4 });
      for (let i = 0; i < 4; i++) await r.record(usageEvent(orgId, i));
      await eventually(async () => expect(await rowsOf(orgId)).toBe(4), { timeoutMs: SETTLE_MS });
    });

    test('a database outage delays records and loses none', async () => {
      const orgId = randomUUID();
      const flaky = new FlakyDb(db);
      const metrics = new Metrics();
      const r = outbox(flaky, { flushTimeoutMs: 100 }, metrics);
      flaky.failing = true;
      for (let i = 0; i < 7; i++) await r.record(usageEvent(orgId, i));
      await expect(r.flush()).rejects.toThrow(/pending/);
      expect(await rowsOf(orgId)).toBe(0);
      expect(await r.depth()).toBe(7);
      expect(await metrics.registry.metrics()).toMatch(/switchyard_usage_write_failures_total\{stage="insert"\} [1-9]/);
      flaky.failing = false;
      await r.flush();
      expect(await rowsOf(orgId)).toBe(7);
      expect(await r.depth()).toBe(0);
    });

    test('a record the database refuses for its content does not block the others', async () => {
      const orgId = randomUUID();
      const metrics = new Metrics();
      const r = outbox(db, { batchSize: 10 }, metrics);
      const bad = { ...usageEvent(orgId, 3), workspaceId: 'not-a-uuid' };
      for (let i = 0; i < 6; i++) await r.record(i === 3 ? bad : usageEvent(orgId, i));
      await r.flush();
      expect(await rowsOf(orgId)).toBe(5);
      expect(await r.depth()).toBe(0);
      expect(await metrics.registry.metrics()).toMatch(/switchyard_usage_write_failures_total\{stage="rejected"\} 1/);
      if (kv.kind === 'redis') {
        const dead = (await (kv as RedisKv).connection.xrange(kv.prefix + USAGE_DEAD_LETTER_KEY, '-', '+')) as Array<
          [string, string[]]
        >;
        expect(dead.some(([, fields]) => fields[1]!.includes(bad.id))).toBe(true);
      }
    });

    if (kvKind.name === 'redis') {
      test('stream entries that are not usage events are set aside; the records around them land as recorded', async () => {
        const orgId = randomUUID();
        const metrics = new Metrics();
        const r = outbox(db, { batchSize: 10 }, metrics);
        const tricky: UsageEvent = {
          ...usageEvent(orgId, 1),
          createdAt: new Date(Date.UTC(2026, 10, 24, 8, 0, 7, 123)),
          endUser: 'he said "hi", then {left}\\ \\"x',
          userAgent: "ünïcødé 🐑 , ; ' tab\there",
        };
        await r.record(usageEvent(orgId, 0));
        await r.record(tricky);
        const client = (kv as RedisKv).connection;
        const add = (...fields: string[]) => client.xadd(kv.prefix + USAGE_STREAM_KEY, '*', ...fields);
        // Whole entries that are not a list of events: set aside as they are.
        const foreign = ['not json', '{"hello":1}', '[{"id":"gen-emb-cut","createdAt":"2026-', '', '[]'];
        for (const raw of foreign) await add('e', raw, 'n', '1');
        await add('r', 'an entry of another format', 'n', '1');
        // A list holding events and other things: the events land, each other member is set aside.
        await add('e', JSON.stringify([usageEvent(orgId, 3), { hello: 2 }, usageEvent(orgId, 4), 7]), 'n', '4');
        await add('e', JSON.stringify([usageEvent(orgId, 5)]), 'n', '1');
        await r.record(usageEvent(orgId, 2));
        await r.flush();
        expect(await rowsOf(orgId)).toBe(6);
        expect(await r.depth()).toBe(0);
        const row = (
          await db.query<{ end_user: string; user_agent: string; created_at: Date }>(
            'SELECT end_user, user_agent, created_at FROM generations WHERE id = $1',
            [tricky.id],
          )
        )[0]!;
        expect(row.end_user).toBe(tricky.endUser);
        expect(row.user_agent).toBe(tricky.userAgent);
        expect(new Date(row.created_at).toISOString()).toBe('2026-11-24T08:00:07.123Z');
        const dead = (await client.xrange(kv.prefix + USAGE_DEAD_LETTER_KEY, '-', '+')) as Array<[string, string[]]>;
        const setAside = dead
          .map(([, fields]) => fields)
          .filter((f) => f[3] === 'not a usage event')
          .map((f) => f[1]);
        expect(setAside).toEqual(
          expect.arrayContaining([...foreign, '{"r":"an entry of another format","n":"1"}', '{"hello":2}', '7']),
        );
        expect(await metrics.registry.metrics()).toMatch(/switchyard_usage_write_failures_total\{stage="rejected"\} 8/);
      });
    }

    test('the timer writes a partial batch by itself once the database is back', async () => {
      const orgId = randomUUID();
      const r = outbox(db, { batchSize: 100, flushIntervalMs: 20 });
      await r.record(usageEvent(orgId, 1));
      await r.record(usageEvent(orgId, 2));
      await eventually(async () => expect(await rowsOf(orgId)).toBe(2), { timeoutMs: SETTLE_MS });
    });

    if (kvKind.name === 'memory') {
      test('a full in-process queue makes record wait (backpressure) instead of dropping', async () => {
        const orgId = randomUUID();
        const flaky = new FlakyDb(db);
        const r = outbox(flaky, { maxQueued: 3, batchSize: 10 });
        flaky.failing = true;
        for (let i = 0; i < 3; i++) await r.record(usageEvent(orgId, i));
        let fourthDone = false;
        const fourth = r.record(usageEvent(orgId, 3)).then(() => {
          fourthDone = true;
        });
        await new Promise((res) => setImmediate(res));
        expect(fourthDone).toBe(false);
        expect(await r.depth()).toBe(3);
        flaky.failing = false;
        await r.flush();
        await fourth;
        await r.flush();
        expect(await rowsOf(orgId)).toBe(4);
      });
    }

    if (kvKind.name === 'redis') {
      const client = () => (kv as RedisKv).connection as Redis;
      const streamKey = () => kv.prefix + USAGE_STREAM_KEY;
      /** The Kv's client with `replaced` methods (faults); every other member is the real one. */
      const clientWith = (replaced: Record<string, (...args: unknown[]) => unknown>): Redis =>
        new Proxy(client(), {
          get(target, prop, receiver) {
            if (typeof prop === 'string' && prop in replaced) return replaced[prop];
            const value = Reflect.get(target, prop, receiver) as unknown;
            return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
          },
        });
      /** Add an entry as a replica that then died would have left it. */
      const addEntry = (events: UsageEvent[]) =>
        client().xadd(streamKey(), '*', 'e', JSON.stringify(events), 'n', String(events.length));
      const pendingCount = async () => {
        const info = (await client().xpending(streamKey(), USAGE_CONSUMER_GROUP)) as [number, ...unknown[]];
        return Number(info[0]);
      };

      test('a replica that dies after inserting its own entries but before deleting them: a sweep writes them again as no-ops', async () => {
        await outbox(db).flush(); // drain leftovers of earlier tests so the stream starts empty
        const orgId = randomUUID();
        const crashing = new FlakyDb(db);
        crashing.crashAfterCommit = true;
        const a = outbox(crashing, { consumer: 'replica-a', flushTimeoutMs: 50, batchSize: 10 });
        for (let i = 0; i < 6; i++) await a.record(usageEvent(orgId, i));
        await expect(a.flush()).rejects.toThrow();
        await a.close(); // the "crash": a never deletes its entries
        expect(await rowsOf(orgId)).toBe(6);
        expect(await client().xlen(streamKey())).toBe(6);
        expect(await pendingCount()).toBe(0); // a inserted from memory: it never read them

        // b's insert of them skips the rows that exist (ON CONFLICT DO NOTHING): not a failure.
        const watched = new FlakyDb(db);
        const metrics = new Metrics();
        const b = outbox(watched, { consumer: 'replica-b' }, metrics);
        await b.flush();
        expect(await client().xlen(streamKey())).toBe(0);
        expect(await rowsOf(orgId)).toBe(6);
        expect(watched.inserts.reduce((a, n) => a + n, 0)).toBeGreaterThanOrEqual(6);
        expect(await metrics.registry.metrics()).not.toMatch(
          /switchyard_usage_write_failures_total\{stage="insert"\} [1-9]/,
        );
      });

      test('a sweeper that dies after the insert but before XACK: another reclaims once idle, nothing is double counted', async () => {
        await outbox(db).flush();
        const orgId = randomUUID();
        // The events come from a replica that died right after adding them.
        for (let i = 0; i < 6; i++) await addEntry([usageEvent(orgId, i)]);
        const crashing = new FlakyDb(db);
        crashing.crashAfterCommit = true;
        const a = outbox(crashing, { consumer: 'replica-p', flushTimeoutMs: 50, batchSize: 10 });
        await expect(a.flush()).rejects.toThrow();
        await a.close(); // the "crash": a never acknowledges what it read
        expect(await rowsOf(orgId)).toBe(6);
        expect(await pendingCount()).toBe(6);

        // A live replica with the normal idle time leaves a's in-flight entries alone…
        const patient = outbox(db, { consumer: 'replica-q', claimIdleMs: 60_000 });
        await patient.flush();
        expect(await pendingCount()).toBe(6);

        // …and one whose idle threshold has passed reclaims and acknowledges them.
        const rescuer = outbox(db, { consumer: 'replica-r', claimIdleMs: 0 });
        await rescuer.flush();
        expect(await pendingCount()).toBe(0);
        expect(await client().xlen(streamKey())).toBe(0);
        expect(await rowsOf(orgId)).toBe(6);
      });

      test('events are in Redis (durable) as soon as record resolves, before any write', async () => {
        const orgId = randomUUID();
        const flaky = new FlakyDb(db);
        flaky.failing = true;
        const r = outbox(flaky, { consumer: 'replica-d' });
        const before = await client().xlen(streamKey());
        await r.record(usageEvent(orgId, 1));
        expect(await client().xlen(streamKey())).toBe(before + 1);
        await r.close();
        // A different replica (the first died) writes it.
        await outbox(db, { consumer: 'replica-e' }).flush();
        expect(await rowsOf(orgId)).toBe(1);
      });

      test('events recorded concurrently share one stream entry, are all in it, and are all written once', async () => {
        const orgId = randomUUID();
        const r = outbox(db, { consumer: 'replica-g', batchSize: 50 });
        const before = await client().xlen(streamKey());
        const events = Array.from({ length: 20 }, (_, i) => usageEvent(orgId, i));
        await Promise.all(events.map((e) => r.record(e)));
        expect(await client().xlen(streamKey())).toBe(before + 1);
        const pending = await r.pending();
        expect(events.every((e) => pending.some((p) => p.id === e.id))).toBe(true);
        await r.flush();
        expect(await rowsOf(orgId)).toBe(20);
      });

      test('dead consumers without pending entries are forgotten; ones holding entries are kept', async () => {
        const orgId = randomUUID();
        const r = outbox(db, { consumer: 'replica-h' }) as StreamOutbox;
        await r.flush(); // creates the group
        await client().xgroup('CREATECONSUMER', streamKey(), USAGE_CONSUMER_GROUP, 'ghost');
        const down = new FlakyDb(db);
        down.failing = true;
        await addEntry([usageEvent(orgId, 1)]);
        const holder = outbox(down, { consumer: 'holder', flushTimeoutMs: 50 });
        await expect(holder.flush()).rejects.toThrow();
        await holder.close();
        const names = async () =>
          ((await client().xinfo('CONSUMERS', streamKey(), USAGE_CONSUMER_GROUP)) as string[][]).map((c) => c[1]);
        expect(await names()).toEqual(expect.arrayContaining(['ghost', 'holder', 'replica-h']));
        expect(await r.forgetDeadConsumers(0)).toBeGreaterThanOrEqual(1);
        const left = await names();
        expect(left).not.toContain('ghost');
        expect(left).toContain('holder');
        expect(left).toContain('replica-h');
        await outbox(db, { consumer: 'replica-i', claimIdleMs: 0 }).flush();
        expect(await rowsOf(orgId)).toBe(1);
      });

      test('flush includes events whose XADD has not been sent yet (shutdown right after a request)', async () => {
        const orgId = randomUUID();
        const r = outbox(db, { consumer: 'replica-j' });
        const recorded = [r.record(usageEvent(orgId, 1)), r.record(usageEvent(orgId, 2))];
        await r.flush();
        await Promise.all(recorded);
        expect(await rowsOf(orgId)).toBe(2);
      });

      /** The Kv's client passing each call of the `names` commands to `seen` (name and arguments) first. */
      const watching = (names: string[], seen: (name: string, args: unknown[]) => void): Redis => {
        const real = client();
        const watch =
          (name: string) =>
          (...args: unknown[]) => {
            seen(name, args);
            return (real[name as keyof Redis] as (...a: unknown[]) => unknown).apply(real, args);
          };
        return clientWith(Object.fromEntries(names.map((name) => [name, watch(name)])));
      };
      /** The Kv's client counting the commands that add usage entries. */
      const countingAdds = () => {
        const counted = { adds: 0 };
        return { counted, client: watching(['xadd'], () => void counted.adds++) };
      };
      const settledWithin = (p: Promise<unknown>, ms: number) =>
        Promise.race([p.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

      test('with a linger, events recorded apart share one XADD, sent once the linger is over', async () => {
        const orgId = randomUUID();
        const { counted, client: counting } = countingAdds();
        // The linger runs on fake timers, moved on exactly; I/O and event-loop turns stay real.
        jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
        const r = outbox(db, { consumer: 'replica-l', batchSize: 50, addLingerMs: 150 }, new Metrics(), counting);
        const before = await client().xlen(streamKey());
        let firstSettled = false;
        const first = r.record(usageEvent(orgId, 1)).finally(() => void (firstSettled = true));
        await jest.advanceTimersByTimeAsync(20); // later turns of the event loop
        const second = r.record(usageEvent(orgId, 2));
        await jest.advanceTimersByTimeAsync(129); // the last millisecond of the first one's linger
        expect(firstSettled).toBe(false);
        expect(await client().xlen(streamKey())).toBe(before);
        await jest.advanceTimersByTimeAsync(1);
        jest.useRealTimers();
        await Promise.all([first, second]);
        expect(counted.adds).toBe(1);
        expect(await client().xlen(streamKey())).toBe(before + 1);
        await r.flush();
        expect(await rowsOf(orgId)).toBe(2);
      });

      test('with a linger, a full batch is sent at once without waiting for it', async () => {
        const orgId = randomUUID();
        const { counted, client: counting } = countingAdds();
        const r = outbox(db, { consumer: 'replica-m', batchSize: 4, addLingerMs: 60_000 }, new Metrics(), counting);
        const before = await client().xlen(streamKey());
        const full = Promise.all(Array.from({ length: 4 }, (_, i) => r.record(usageEvent(orgId, i))));
        expect(await settledWithin(full, 5000)).toBe(true);
        expect(counted.adds).toBe(1);
        expect(await client().xlen(streamKey())).toBe(before + 1);
        // The fifth starts a new linger; a flush (shutdown) sends it without waiting for that.
        const fifth = r.record(usageEvent(orgId, 4));
        await r.flush();
        expect(await settledWithin(fifth, 1000)).toBe(true);
        expect(counted.adds).toBe(2);
        expect(await rowsOf(orgId)).toBe(5);
      });

      test('a replica inserts the entries it added from memory: between sweeps it never reads the stream', async () => {
        await outbox(db).flush(); // drain leftovers of earlier tests so the first sweep finds nothing
        const orgId = randomUUID();
        const calls: string[] = [];
        const counting = watching(['xreadgroup', 'xautoclaim', 'xrange'], (name, args) => {
          calls.push(name === 'xreadgroup' ? `xreadgroup ${String(args[args.length - 1])}` : name);
        });
        const r = outbox(db, { consumer: 'replica-t', claimIdleMs: 60_000 }, new Metrics(), counting);
        await r.flush(); // the first sweep: own pending entries, idle ones, new ones
        expect(calls).toEqual(['xreadgroup 0', 'xautoclaim', 'xreadgroup >']);
        calls.length = 0;
        // Full batches (5) are written as they fill, by the drain they kick, not by a flush.
        for (let round = 0; round < 3; round++)
          await Promise.all(Array.from({ length: 5 }, (_, i) => r.record(usageEvent(orgId, round * 5 + i))));
        await eventually(async () => expect(await rowsOf(orgId)).toBe(15), { timeoutMs: SETTLE_MS });
        expect(calls).toEqual([]);
        // Deleted once written.
        await eventually(async () => expect(await r.depth()).toBe(0), { timeoutMs: SETTLE_MS });
      });

      test('entries a replica let go of in a long outage (beyond its memory bound) are written by a sweep', async () => {
        await outbox(db).flush();
        const orgId = randomUUID();
        const flaky = new FlakyDb(db);
        flaky.failing = true;
        // Keeps 20 batches of 2 events in memory; 60 events are 30 entries (awaited one by one).
        const r = outbox(flaky, { consumer: 'replica-u', batchSize: 2, flushTimeoutMs: 50 });
        for (let i = 0; i < 60; i++) await r.record(usageEvent(orgId, i));
        await expect(r.flush()).rejects.toThrow(/pending/);
        expect(await client().xlen(streamKey())).toBe(60);
        flaky.failing = false;
        await r.flush();
        expect(await rowsOf(orgId)).toBe(60);
        expect(await client().xlen(streamKey())).toBe(0);
      });

      test("a replica busy with its own entries still sweeps: a dead replica's entry lands without a flush", async () => {
        await outbox(db).flush();
        const orgId = randomUUID();
        const orphan = usageEvent(orgId, 999);
        await addEntry([orphan]); // added by a replica that then died
        // Sweeps every 10 ms (claimIdleMs / 4); full batches of 5 keep its own entries coming meanwhile.
        const r = outbox(db, { consumer: 'replica-v', batchSize: 5, claimIdleMs: 40 });
        for (let round = 0; round < 40 && (await rowsOf(orgId)) < 1; round++) {
          await Promise.all(Array.from({ length: 5 }, (_, i) => r.record(usageEvent(orgId, round * 5 + i))));
          await new Promise((res) => setTimeout(res, 5));
        }
        const orphanRow = () => db.query('SELECT 1 FROM generations WHERE id = $1', [orphan.id]);
        await eventually(async () => expect(await orphanRow()).toHaveLength(1), { timeoutMs: SETTLE_MS });
      });

      test('without a linger, the events of one turn share one XADD and later turns send their own', async () => {
        const orgId = randomUUID();
        const { counted, client: counting } = countingAdds();
        const r = outbox(db, { consumer: 'replica-n', batchSize: 50, addLingerMs: 0 }, new Metrics(), counting);
        await Promise.all([
          r.record(usageEvent(orgId, 1)),
          r.record(usageEvent(orgId, 2)),
          r.record(usageEvent(orgId, 3)),
        ]);
        expect(counted.adds).toBe(1);
        await r.record(usageEvent(orgId, 4));
        expect(counted.adds).toBe(2);
        await r.flush();
        expect(await rowsOf(orgId)).toBe(4);
      });

      test('when Redis refuses the XADD, the event is buffered and written straight to the database', async () => {
        const orgId = randomUUID();
        const refuse = () => Promise.reject(new Error('Connection is closed.'));
        const refusing = clientWith({ xadd: refuse });
        const metrics = new Metrics();
        const r = outbox(db, { consumer: 'replica-f' }, metrics, refusing);
        await r.record(usageEvent(orgId, 1));
        await r.record(usageEvent(orgId, 2));
        await Promise.all([r.record(usageEvent(orgId, 3)), r.record(usageEvent(orgId, 4))]);
        await r.flush();
        expect(await rowsOf(orgId)).toBe(4);
        expect(await metrics.registry.metrics()).toMatch(/switchyard_usage_write_failures_total\{stage="enqueue"\} 4/);
      });
    }
  });
});
