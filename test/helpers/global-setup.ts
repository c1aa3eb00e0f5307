/**
 * Runs once before all test files: finds Redis and Postgres (REDIS_URL / DATABASE_URL, else the
 * local defaults), records what is available for the workers, and builds a migrated PGlite
 * template so each test file starts its embedded database in well under a second.
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
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1500, maxRetriesPerRequest: 0, retryStrategy: () => null });
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

async function buildPgliteTemplate(): Promise<string> {
  const pg = await PGlite.create();
  await pg.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
  for (const m of listMigrations()) {
    await pg.exec(m.sql);
    await pg.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
  }
  const dump = await pg.dumpDataDir('gzip');
  await pg.close();
  const file = path.join(os.tmpdir(), `switchyard-pglite-template-${process.pid}.tar.gz`);
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  return file;
}

export default async function globalSetup(): Promise<void> {
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const pgUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const [redisProblem, pgProblem, template] = await Promise.all([probeRedis(redisUrl), probePostgres(pgUrl), buildPgliteTemplate()]);
  const missing = [redisProblem, pgProblem].filter(Boolean);
  if (missing.length > 0 && process.env.REQUIRE_SERVICES === '1') {
    throw new Error(`REQUIRE_SERVICES=1 but: ${missing.join('; ')}`);
  }
  for (const problem of missing) console.log(`[switchyard tests] skipping suites that need it: ${problem}`);
  process.env.SY_TEST_PGLITE_TEMPLATE = template;
  if (redisProblem) process.env.SY_TEST_REDIS_SKIP = redisProblem;
  else process.env.SY_TEST_REDIS_URL = redisUrl;
  if (pgProblem) process.env.SY_TEST_PG_SKIP = pgProblem;
  else process.env.SY_TEST_DATABASE_URL = pgUrl;
}
