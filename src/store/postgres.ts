/**
 * `Database` over a `pg` connection pool, for production and for replicas sharing one Postgres.
 * @module
 */
import { Pool, type PoolClient } from 'pg';
import type { Database, Queryable } from './db';

/** Options for {@link openPostgres}. */
export interface PostgresOptions {
  url: string;
  poolSize?: number;
  /** Use this schema (created if missing) instead of `public`; tests isolate themselves this way. */
  schema?: string;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** What the pool reports beyond query results (kept out of the options, which are copied to other threads). */
export interface PostgresHooks {
  /** Called with each `error` event of the pool or a pooled client (logs and metrics only). */
  onConnectionError?: (err: Error) => void;
}

/** Open a pool, create the schema if asked, and check the connection once. */
export async function openPostgres(options: PostgresOptions, hooks: PostgresHooks = {}): Promise<Database> {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new Error(`invalid schema name: ${options.schema}`);
  }
  const pool = new Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30000,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  });
  // A client losing its connection must not crash the process. Idle ones report to the pool; a
  // checked-out one (a statement in flight, a transaction between statements, a lock held around
  // other work) emits `error` on itself, which without a listener is an uncaught exception. Its
  // work fails through the query that was running or the next one, and the pool drops the
  // client when it is released; the next query reconnects.
  const onError = hooks.onConnectionError ?? (() => undefined);
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  if (options.schema) {
    // Concurrent IF NOT EXISTS can still race in the catalog (23505): the schema exists then.
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`).catch((err: { code?: string }) => {
      if (err.code !== '23505' && err.code !== '42P06') throw err;
    });
  } else {
    await pool.query('SELECT 1');
  }

  const onClient = (client: PoolClient): Queryable => ({
    async query<T>(sql: string, params?: readonly unknown[]) {
      return (await client.query(sql, params as unknown[])).rows as T[];
    },
  });

  return {
    kind: 'postgres',
    async query<T>(sql: string, params?: readonly unknown[]) {
      return (await pool.query(sql, params as unknown[])).rows as T[];
    },
    async exec(sql) {
      await pool.query(sql);
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(onClient(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        // Fails only with the connection gone (reported through onConnectionError; the pool drops
        // the client): the transaction's own error is the one to throw.
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async withLock(name, fn) {
      const client = await pool.connect();
      const key = `${options.schema ?? 'public'}:${name}`;
      try {
        await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
        return await fn();
      } finally {
        // Fails only with the connection gone (reported through onConnectionError), and the lock
        // went with its session.
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]).catch(() => undefined);
        client.release();
      }
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      await pool.end();
    },
  };
}
