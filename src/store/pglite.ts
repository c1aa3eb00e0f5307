/**
 * `Database` over PGlite (Postgres compiled to WASM, in-process). A data directory belongs to
 * exactly one process: we hold a lock file on it, so a second gateway or the admin CLI is told
 * plainly that the directory is in use instead of corrupting it.
 * @module
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
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

/** Open (creating if needed) a PGlite database. */
export async function openPglite(options: PgliteOptions = {}): Promise<Database> {
  const dataDir = options.dataDir ? path.resolve(options.dataDir) : undefined;
  const release = dataDir ? await lockDataDir(dataDir) : async () => undefined;
  let pg: PGlite;
  try {
    pg = await PGlite.create({
      ...(dataDir ? { dataDir: path.join(dataDir, 'pglite') } : {}),
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
    query: base.query,
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
