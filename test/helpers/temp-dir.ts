/**
 * Temporary directories for one test file, removed after its last test: a suite run on a CI
 * machine must not leave data dirs and config files behind in the system's temp directory.
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new empty directory under the system temp dir, named `<prefix>XXXXXX`, removed after the file's tests. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}
