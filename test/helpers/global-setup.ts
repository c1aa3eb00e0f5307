/**
 * Runs once before all test files: finds Redis and Postgres (REDIS_URL / DATABASE_URL, else the
 * local defaults), records what is available for the workers, and builds PGlite templates (empty,
 * and migrated) so each test file starts its embedded database, in memory or in a data dir, without
 * running initdb.
 * With REQUIRE_SERVICES=1 (CI) a missing service fails the run instead of skipping suites.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { listMigrations } from '../../src/store/migrate';

async function probeRedis(url: string): Promise<string | null> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1500,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (err) {
    return `Redis at ${url} unreachable (${(err as Error).message})`;
  } finally {
    client.disconnect();
  }
}

async function probePostgres(url: string): Promise<string | null> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return `PostgreSQL at ${url} unreachable (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Two PGlite archives: a new cluster with nothing in it (for the tests of migrating an empty
 * database), and the same with every migration applied (where every other embedded database starts).
 * A test that creates a data dir from one of them skips initdb, which on a busy machine took most
 * of a 30 s test timeout.
 */
async function buildPgliteTemplates(): Promise<{ empty: string; migrated: string }> {
  const pg = await PGlite.create();
  const save = async (name: string) => {
    const file = path.join(os.tmpdir(), `switchyard-pglite-${name}-${process.pid}.tar.gz`);
    writeFileSync(file, Buffer.from(await (await pg.dumpDataDir('gzip')).arrayBuffer()));
    return file;
  };
  const empty = await save('empty');
  await pg.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const m of listMigrations()) {
    await pg.exec(m.sql);
    await pg.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
  }
  const migrated = await save('template');
  await pg.close();
  return { empty, migrated };
}

export default async function globalSetup(): Promise<void> {
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const pgUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const [redisProblem, pgProblem, templates] = await Promise.all([
    probeRedis(redisUrl),
    probePostgres(pgUrl),
    buildPgliteTemplates(),
  ]);
  const missing = [redisProblem, pgProblem].filter(Boolean);
  if (missing.length > 0 && process.env.REQUIRE_SERVICES === '1') {
    throw new Error(`REQUIRE_SERVICES=1 but: ${missing.join('; ')}`);
  }
  for (const problem of missing) console.log(`[switchyard tests] skipping suites that need it: ${problem}`);
  process.env.SY_TEST_PGLITE_TEMPLATE = templates.migrated;
  process.env.SY_TEST_PGLITE_EMPTY = templates.empty;
  if (redisProblem) process.env.SY_TEST_REDIS_SKIP = redisProblem;
  else process.env.SY_TEST_REDIS_URL = redisUrl;
  if (pgProblem) process.env.SY_TEST_PG_SKIP = pgProblem;
  else process.env.SY_TEST_DATABASE_URL = pgUrl;
}
