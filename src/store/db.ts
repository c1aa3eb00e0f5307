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
