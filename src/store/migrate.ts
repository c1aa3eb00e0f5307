/**
 * Numbered SQL migrations (`NNN_name.sql`), applied in order, each in its own transaction, under
 * a cluster-wide lock so that replicas starting together never race. Run at start and by
 * `switchyard migrate`.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Database } from './db';
import { fromRoot } from '../paths';

const DIR = fromRoot('src', 'store', 'migrations');
const FILE = /^(\d{3})_[a-z0-9_]+\.sql$/;

/** One migration file. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The shipped migrations, in order. */
export function listMigrations(): Migration[] {
  return readdirSync(DIR)
    .filter((f) => FILE.test(f))
    .sort()
    .map((name) => ({ version: Number(FILE.exec(name)?.[1]), name, sql: readFileSync(`${DIR}/${name}`, 'utf8') }));
}

/**
 * Apply every migration not yet recorded in `schema_migrations`.
 * @returns the names applied by this call (empty when up to date)
 */
export async function migrate(db: Database): Promise<string[]> {
  return db.withLock('migrate', async () => {
    await db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await db.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version),
    );
    const applied: string[] = [];
    for (const m of listMigrations()) {
      if (done.has(m.version)) continue;
      await db.transaction(async (tx) => {
        for (const statement of splitStatements(m.sql)) await tx.query(statement);
        await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      });
      applied.push(m.name);
    }
    return applied;
  });
}

/** Split a migration on `;` at line ends (our migrations keep one statement per `;`-terminated block). */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\r?\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter(Boolean);
}
