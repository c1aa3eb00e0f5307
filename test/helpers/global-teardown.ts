/**
 * Jest global teardown: removes the PGlite template archives that the global setup wrote to the
 * system temp dir (about 10 MB a run).
 * @module
 */
import { rmSync } from 'node:fs';

export default function globalTeardown(): void {
  for (const file of [process.env.SY_TEST_PGLITE_TEMPLATE, process.env.SY_TEST_PGLITE_EMPTY])
    if (file) rmSync(file, { force: true });
}
