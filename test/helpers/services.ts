/**
 * Per-test-file isolated stores: each call gets its own PGlite (from the migrated template),
 * its own Postgres schema, or its own Redis key prefix, so parallel workers never share state.
 * Suites that need a service not running here are skipped with the reason printed by the
 * global setup (and fail in CI, where REQUIRE_SERVICES=1).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import type { Database } from '../../src/store/db';
import { openPglite } from '../../src/store/pglite';
import { openPostgres } from '../../src/store/postgres';
import { migrate } from '../../src/store/migrate';
import type { Kv } from '../../src/kv/kv';
import { MemoryKv } from '../../src/kv/memory';
import { RedisKv } from '../../src/kv/redis';
import { tempDir } from './temp-dir';

/**
 * Loaded first (`node -r`) by child processes that run the TypeScript sources, so they can
 * require `.ts` files.
 */
export const TS_LOADER = path.join(__dirname, 'ts-loader.js');

/** A short random id for schema names and key prefixes. */
export function uniqueId(): string {
  return randomBytes(5).toString('hex');
}

/** Redis URL when Redis is available to tests, else undefined. */
export const REDIS_URL = process.env.SY_TEST_REDIS_URL;
/** Postgres URL when available to tests, else undefined. */
export const DATABASE_URL = process.env.SY_TEST_DATABASE_URL;

/**
 * A missing service never makes cases vanish silently: every test file that imports these helpers
 * (the files whose cases run against Redis or Postgres when present) reports one skipped test
 * naming the service and why it was not reached. CI (`REQUIRE_SERVICES=1`) fails instead.
 */
for (const reason of [process.env.SY_TEST_REDIS_SKIP, process.env.SY_TEST_PG_SKIP]) {
  if (reason) test.skip(`cases on this service are skipped: ${reason}`, () => undefined);
}

/** A database kind that tests can run against. */
export interface DbFactory {
  name: 'pglite' | 'postgres';
  open(): Promise<Database>;
}

/** Fresh in-memory PGlite with every migration applied (from the template). */
export async function openTestPglite(): Promise<Database> {
  const template = process.env.SY_TEST_PGLITE_TEMPLATE;
  const db = template ? await openPglite({ loadDataDir: new Blob([readFileSync(template)]) }) : await openPglite();
  await migrate(db);
  return db;
}

/**
 * A new embedded data dir (as `SWITCHYARD_DATA_DIR` names it) made from the global setup's archive
 * instead of by initdb, which took seconds on an idle machine and most of a test's 30 s on a busy
 * one: `migrated` (the default) has every migration applied, `empty` is a new cluster with no
 * table yet (for tests of migrating an empty database). Removed after the file's tests.
 */
export async function seededDataDir(prefix: string, kind: 'migrated' | 'empty' = 'migrated'): Promise<string> {
  const archive = kind === 'migrated' ? process.env.SY_TEST_PGLITE_TEMPLATE : process.env.SY_TEST_PGLITE_EMPTY;
  const dir = tempDir(prefix);
  // Without the archive (a file run outside the suite's setup) the directory is created by initdb as in production.
  const db = await openPglite({ dataDir: dir, ...(archive ? { loadDataDir: new Blob([readFileSync(archive)]) } : {}) });
  try {
    if (kind === 'migrated') await migrate(db);
  } finally {
    await db.close();
  }
  return dir;
}

/** Where each test Postgres database lives, so a test can open a second pool on it (another replica). */
const locations = new WeakMap<Database, { url: string; schema: string }>();

/** The URL and schema of a database from {@link openTestPostgres}; undefined for PGlite. */
export function postgresLocation(db: Database): { url: string; schema: string } | undefined {
  return locations.get(db);
}

/** A fresh Postgres schema with every migration applied; dropped on close. */
export async function openTestPostgres(url = DATABASE_URL): Promise<Database> {
  if (!url) throw new Error('Postgres not available');
  const schema = `t_${uniqueId()}`;
  const db = await openPostgres({ url, schema, poolSize: 5 });
  await migrate(db);
  const close = db.close.bind(db);
  const wrapped: Database = {
    ...db,
    async close() {
      await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
      await close();
    },
  };
  locations.set(wrapped, { url, schema });
  return wrapped;
}

/** Every database kind available here: PGlite always, Postgres when running. */
export const DATABASES: DbFactory[] = [
  { name: 'pglite', open: openTestPglite },
  ...(DATABASE_URL ? [{ name: 'postgres' as const, open: () => openTestPostgres() }] : []),
];

/** Redis with a unique prefix; its keys are deleted on close. */
export async function openTestRedisKv(prefix = `t:${uniqueId()}:`): Promise<RedisKv> {
  if (!REDIS_URL) throw new Error('Redis not available');
  const kv = await RedisKv.connect({ url: REDIS_URL, prefix, commandTimeoutMs: 2000 });
  const close = kv.close.bind(kv);
  kv.close = async () => {
    await deleteRedisPrefix(prefix);
    await close();
  };
  return kv;
}

/** Remove every key under `prefix` (test cleanup). */
export async function deleteRedisPrefix(prefix: string): Promise<void> {
  if (!REDIS_URL) return;
  const client = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/** A key-value store kind that tests can run against. */
export interface KvFactory {
  name: 'memory' | 'redis';
  open(prefix?: string): Promise<Kv>;
}

/** Every Kv kind available here: the in-process twin always, Redis when running. */
export const KVS: KvFactory[] = [
  { name: 'memory', open: (prefix = `t:${uniqueId()}:`) => Promise.resolve(new MemoryKv(prefix)) },
  ...(REDIS_URL ? [{ name: 'redis' as const, open: (prefix?: string) => openTestRedisKv(prefix) }] : []),
];

/** `describe` when `condition` holds, else a skipped describe (the reason is printed at setup). */
export function describeIf(condition: unknown): jest.Describe {
  return condition ? describe : describe.skip;
}
