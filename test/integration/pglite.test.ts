/**
 * Embedded PGlite on disk: a new data directory is created (by a short-lived child process, so
 * initdb's memory never lands in the gateway) and then opened here with the embedded settings;
 * what was written survives a reopen; a second opener of a directory in use is told so.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDirLockedError, openPglite } from '../../src/store/pglite';

describe('PGlite data directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sy-pglite-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('a new directory is initialised, opened with 16 MB of shared buffers, and keeps its data across a reopen', async () => {
    const db = await openPglite({ dataDir: dir });
    try {
      expect(existsSync(path.join(dir, 'pglite', 'PG_VERSION'))).toBe(true);
      expect(await db.query<{ shared_buffers: string }>('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
      await db.exec('CREATE TABLE kept (v text)');
      await db.query('INSERT INTO kept VALUES ($1)', ['still here']);
    } finally {
      await db.close();
    }
    const again = await openPglite({ dataDir: dir });
    try {
      expect(await again.query('SELECT v FROM kept')).toEqual([{ v: 'still here' }]);
      await expect(openPglite({ dataDir: dir })).rejects.toBeInstanceOf(DataDirLockedError);
    } finally {
      await again.close();
    }
  }, 60_000);
});
