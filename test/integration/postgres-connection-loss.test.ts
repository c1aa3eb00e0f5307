/**
 * Postgres connections that die while a pooled client is checked out (a statement in flight, a
 * transaction between statements, an advisory lock held around other work) must fail that work,
 * never the process: `pg` emits `error` on such a client, and an `error` event without a
 * listener is an uncaught exception. Connections go through a TCP proxy that is cut mid-way;
 * the pool must serve again once the proxy is back.
 */
import { tcpProxy, type TcpProxy } from '../../testkit/tcp-proxy';
import { DATABASE_URL, describeIf, uniqueId } from '../helpers/services';
import { openPostgres } from '../../src/store/postgres';
import type { Database } from '../../src/store/db';
import { until } from '../helpers/eventually';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Resolved by {@link cutDuring} once the proxy has cut every connection. */
type Cut = Promise<void>;

describeIf(DATABASE_URL)('a Postgres connection lost while a client is checked out', () => {
  let proxy: TcpProxy;
  let db: Database;
  /** The same schema reached directly, not through the proxy: sees what runs when the proxy is cut. */
  let observer: Database;
  const schema = `t_${uniqueId()}`;
  const uncaught: Error[] = [];
  const record = (err: Error): void => {
    uncaught.push(err);
  };

  beforeAll(async () => {
    const target = new URL(DATABASE_URL as string);
    proxy = await tcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.open();
    const url = new URL(DATABASE_URL as string);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    db = await openPostgres({ url: url.toString(), schema, poolSize: 4 });
    await db.exec('CREATE TABLE loss_probe (id integer PRIMARY KEY)');
    observer = await openPostgres({ url: DATABASE_URL as string, schema, poolSize: 1 });
    process.on('uncaughtException', record);
  });
  afterAll(async () => {
    process.off('uncaughtException', record);
    await proxy.open();
    await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.close();
    await observer.close();
    await proxy.close();
  });
  beforeEach(async () => {
    await proxy.open();
    uncaught.length = 0;
  });

  /** Whether the statement tagged `AS marker` is running on the server (seen past the proxy). */
  async function statementRunning(marker: string): Promise<boolean> {
    const [row] = await observer.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1`,
      [`SELECT pg_sleep(2) AS ${marker}%`],
    );
    return row!.n > 0;
  }

  /**
   * Cut every connection while `work` holds a client: once it calls `holding` (it is inside its
   * transaction or lock; connecting through the proxy can take longer than any fixed wait on a
   * slow machine), and then `ready` (if given) resolves. `work` gets the cut as a promise, to go
   * on once its connection is gone. Its outcome, then the pool again.
   */
  async function cutDuring(
    work: (holding: () => void, cut: Cut) => Promise<unknown>,
    ready?: () => Promise<unknown>,
  ): Promise<void> {
    let holding!: () => void;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    let cutDone!: () => void;
    const cut = new Promise<void>((resolve) => {
      cutDone = resolve;
    });
    const outcome = work(holding, cut).then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    await Promise.race([held, outcome]);
    if (ready) await ready();
    await proxy.close();
    cutDone();
    await expect(outcome).resolves.not.toBe('resolved');
    // No event says "no other client will emit an error": a short grace for a late one to surface.
    await sleep(100);
    expect(uncaught.map((e) => e.message)).toEqual([]);
    await proxy.open();
    await expect(db.query('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
  }

  test('a transaction between two statements fails, and the pool serves again', async () => {
    await cutDuring((holding, cut) =>
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO loss_probe (id) VALUES (1)');
        holding();
        await cut;
        await tx.query('INSERT INTO loss_probe (id) VALUES (2)');
      }),
    );
    expect(await db.query('SELECT id FROM loss_probe WHERE id IN (1, 2)')).toEqual([]);
  });

  test('a statement running in a transaction fails when its connection ends under it', async () => {
    const marker = `${schema}_tx_sleep`;
    await cutDuring(
      (holding) =>
        db.transaction((tx) => {
          holding();
          return tx.query(`SELECT pg_sleep(2) AS ${marker}`);
        }),
      () => until('the statement to run on the server', () => statementRunning(marker)),
    );
  });

  test('work under an advisory lock fails its unlock quietly; the process lives', async () => {
    let ran = false;
    await cutDuring(async (holding, cut) => {
      await db.withLock('loss', async () => {
        holding();
        await cut;
        ran = true;
      });
      // The lock went with the connection; withLock itself resolves, so report the loss here.
      throw new Error('connection lost under the lock');
    });
    expect(ran).toBe(true);
  });

  test('statements in flight outside a transaction (large multi-row inserts, a sleep) fail whole, and later ones land', async () => {
    const insert = (json: string) =>
      db.query('INSERT INTO loss_probe (id) SELECT id FROM json_to_recordset($1::json) AS r(id integer)', [json]);
    const batch = (k: number) =>
      JSON.stringify(Array.from({ length: 100_000 }, (_, i) => ({ id: (k + 1) * 1_000_000 + i })));
    const marker = `${schema}_sleep`;
    let sleeping = false;
    await cutDuring(async (holding) => {
      const running = Promise.all([
        ...[0, 1, 2].map((k) => insert(batch(k))),
        db.query(`SELECT pg_sleep(2) AS ${marker}`),
      ]);
      running.catch(() => undefined); // awaited below; may fail while we wait for the sleep to start
      // Cut once the sleep is running on the server (the inserts are sent or on their way).
      sleeping = await until('the sleep to run on the server', () => statementRunning(marker));
      holding();
      return running;
    });
    expect(sleeping).toBe(true); // the cut came while a statement was running
    // Each insert is one statement: all of its rows or none.
    const [{ n }] = (await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM loss_probe WHERE id >= 1000000',
    )) as [{ n: number }];
    expect(n % 100_000).toBe(0);
    await insert(JSON.stringify([{ id: 7 }]));
    expect(await db.query('SELECT id FROM loss_probe WHERE id = 7')).toEqual([{ id: 7 }]);
  });
});
