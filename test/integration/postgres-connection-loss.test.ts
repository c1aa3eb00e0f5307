/**
 * Postgres connections that die while a pooled client is checked out (a transaction between
 * statements, an advisory lock held around other work, a COPY in flight) must fail that work,
 * never the process: `pg` emits `error` on such a client, and an `error` event without a
 * listener is an uncaught exception. Connections go through a TCP proxy that is cut mid-way;
 * the pool must serve again once the proxy is back.
 */
import { tcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { DATABASE_URL, describeIf, uniqueId } from '../helpers/services';
import { openPostgres } from '../../src/store/postgres';
import type { Database } from '../../src/store/db';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeIf(DATABASE_URL)('a Postgres connection lost while a client is checked out', () => {
  let proxy: TcpProxy;
  let db: Database;
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
    process.on('uncaughtException', record);
  });
  afterAll(async () => {
    process.off('uncaughtException', record);
    await proxy.open();
    await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.close();
    await proxy.close();
  });
  beforeEach(async () => {
    await proxy.open();
    uncaught.length = 0;
  });

  /**
   * Cut every connection while `work` holds a client: once it calls `holding` (it is inside its
   * transaction or lock; connecting through the proxy can take longer than any fixed wait on a
   * slow machine), then after `ms` more. Its outcome, then the pool again.
   */
  async function cutDuring(work: (holding: () => void) => Promise<unknown>, ms = 0): Promise<void> {
    let holding!: () => void;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const outcome = work(holding).then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    await Promise.race([held, outcome]);
    await sleep(ms);
    await proxy.close();
    await expect(outcome).resolves.not.toBe('resolved');
    await sleep(100);
    expect(uncaught.map((e) => e.message)).toEqual([]);
    await proxy.open();
    await expect(db.query('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
  }

  test('a transaction between two statements fails, and the pool serves again', async () => {
    await cutDuring((holding) =>
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO loss_probe (id) VALUES (1)');
        holding();
        await sleep(300);
        await tx.query('INSERT INTO loss_probe (id) VALUES (2)');
      }),
    );
    expect(await db.query('SELECT id FROM loss_probe WHERE id IN (1, 2)')).toEqual([]);
  });

  test('a statement running in a transaction fails when its connection ends under it', async () => {
    await cutDuring(
      (holding) =>
        db.transaction((tx) => {
          holding();
          return tx.query('SELECT pg_sleep(2)');
        }),
      100, // the statement is on its way
    );
  });

  test('work under an advisory lock fails its unlock quietly; the process lives', async () => {
    let ran = false;
    await cutDuring(async (holding) => {
      await db.withLock('loss', async () => {
        holding();
        await sleep(300);
        ran = true;
      });
      // The lock went with the connection; withLock itself resolves, so report the loss here.
      throw new Error('connection lost under the lock');
    });
    expect(ran).toBe(true);
  });

  test('COPYs in flight fail, and later COPYs land', async () => {
    const rows = (k: number) => Array.from({ length: 100_000 }, (_, i) => `${(k + 1) * 1_000_000 + i}\n`).join('');
    const batches = [0, 1, 2, 3].map(rows);
    await cutDuring((holding) => {
      const copies = Promise.all(batches.map((b) => db.copyIn('loss_probe', ['id'], [b])));
      holding();
      return copies;
    }, 5);
    await db.copyIn('loss_probe', ['id'], ['7\n']);
    expect(await db.query('SELECT id FROM loss_probe WHERE id = 7')).toEqual([{ id: 7 }]);
  });
});
