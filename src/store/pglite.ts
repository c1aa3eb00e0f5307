/**
 * `Database` over PGlite (Postgres compiled to WASM, in-process). A data directory belongs to
 * exactly one process: we hold a lock file on it, so a second gateway or the admin CLI is told
 * plainly that the directory is in use instead of corrupting it.
 * @module
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import lockfile from 'proper-lockfile';
import type { Database, Queryable } from './db';

/** Options for {@link openPglite}: a data dir on disk, or in memory (optionally from a dump). */
export interface PgliteOptions {
  /** Directory for the data; omitted → in memory. */
  dataDir?: string;
  /** A `dumpDataDir()` tarball to start from (tests load a migrated template this way). */
  loadDataDir?: Blob;
}

/** Raised when another process holds the data directory. */
export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `the data directory ${dataDir} is in use by another Switchyard process (the running gateway?). ` +
        'Stop it first, or point both at a shared PostgreSQL with DATABASE_URL.',
    );
    this.name = 'DataDirLockedError';
  }
}

async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  mkdirSync(dataDir, { recursive: true });
  try {
    return await lockfile.lock(dataDir, {
      lockfilePath: path.join(dataDir, 'switchyard.lock'),
      stale: 15000,
      update: 5000,
      realpath: false,
      // A lost lock (dir removed under us) must not throw from a timer; the next open re-checks.
      onCompromised: () => undefined,
    });
  } catch (err) {
    if ((err as { code?: string }).code === 'ELOCKED') throw new DataDirLockedError(dataDir);
    throw err;
  }
}

/**
 * Postgres settings of the embedded database. PGlite starts Postgres with its defaults, whose
 * shared buffers live in the WASM heap of this very process and would make up much of its memory.
 * Embedded mode serves one development process and a small database, which 16 MB of buffers holds.
 */
export const PGLITE_CONF = ['shared_buffers=16MB'];

/**
 * Create a new data directory in a short-lived child process. PGlite's initdb runs in a WASM
 * instance of its own whose memory the process would keep afterwards, so a first boot done
 * in-process would leave the gateway several times larger than a later boot of the same
 * directory. A child that fails is ignored (its output is not kept): the in-process create that
 * follows then meets the same problem and reports it through the usual path.
 */
async function initInChild(pgDir: string): Promise<void> {
  const code = `require(${JSON.stringify(require.resolve('@electric-sql/pglite'))}).PGlite.create(${JSON.stringify({ dataDir: pgDir, postgresqlconf: PGLITE_CONF })}).then((pg) => pg.close(), () => process.exit(1));`;
  try {
    await promisify(execFile)(process.execPath, ['-e', code], { timeout: 120_000 });
  } catch {
    // see above
  }
}

/** Open (creating if needed) a PGlite database. */
export async function openPglite(options: PgliteOptions = {}): Promise<Database> {
  const dataDir = options.dataDir ? path.resolve(options.dataDir) : undefined;
  const release = dataDir ? await lockDataDir(dataDir) : () => Promise.resolve();
  const pgDir = dataDir ? path.join(dataDir, 'pglite') : undefined;
  let pg: PGlite;
  try {
    if (pgDir && !options.loadDataDir && !existsSync(path.join(pgDir, 'PG_VERSION'))) await initInChild(pgDir);
    pg = await PGlite.create({
      postgresqlconf: PGLITE_CONF,
      ...(pgDir ? { dataDir: pgDir } : {}),
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    });
  } catch (err) {
    await release();
    throw err;
  }
  const wrap = (q: Pick<PGlite, 'query'>): Queryable => ({
    async query<T>(sql: string, params?: readonly unknown[]) {
      return (await q.query<T>(sql, params as unknown[])).rows;
    },
  });
  const base = wrap(pg);
  let closed = false;

  return {
    kind: 'pglite',
    query: base.query.bind(base),
    async exec(sql) {
      await pg.exec(sql);
    },
    transaction(fn) {
      return pg.transaction((tx) => fn(wrap(tx)));
    },
    // One process owns the database, and the file lock above already excludes others.
    withLock(_name, fn) {
      return fn();
    },
    async ping() {
      await pg.query('SELECT 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      await pg.close();
      await release();
    },
  };
}
