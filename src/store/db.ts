/**
 * One database interface over two engines: `pg` (a real PostgreSQL, shared by every replica)
 * and PGlite (the same SQL dialect in-process, for the zero-dependency default). Repositories
 * only see `Database`, so every query is written once and tested against both.
 * @module
 */

/** Something that runs parameterised SQL: the database itself or an open transaction. */
export interface Queryable {
  /** Run one statement with `$1…` parameters and return its rows. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

/** A database handle; `kind` is for logs and readiness output only. */
export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /**
   * How a Postgres database was opened (url, schema), so another thread can open its own pool
   * to it (the usage writer); absent for PGlite, which lives inside this thread.
   */
  readonly connection?: { url: string; schema?: string };
  /**
   * Bulk-load rows given in COPY text format (one row per line, tab-separated; chunks are
   * concatenated, each ending on a whole row) into `columns` of `table`, in one statement: all
   * rows or none. About half of Postgres's CPU per row of an `INSERT … SELECT` from JSON; but
   * with no `ON CONFLICT`, a row whose key exists fails the whole load (SQLSTATE 23505).
   */
  copyIn(table: string, columns: readonly string[], chunks: ReadonlyArray<Buffer | string>): Promise<void>;
  /** Run several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /** Run `fn` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Run `fn` while holding a cluster-wide named lock (a Postgres advisory lock), so that
   * replicas starting together migrate and bootstrap exactly once.
   */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The statement behind {@link Database.copyIn}, reading from `source` (`STDIN` for pg, PGlite's
 * `'/dev/blob'`). Table and column names are the code's own; they are spliced into SQL, so they
 * are checked anyway.
 */
export function copyStatement(table: string, columns: readonly string[], source: string): string {
  for (const name of [table, ...columns]) if (!IDENTIFIER.test(name)) throw new Error(`copyIn: bad identifier ${name}`);
  return `COPY ${table} (${columns.join(',')}) FROM ${source}`;
}
