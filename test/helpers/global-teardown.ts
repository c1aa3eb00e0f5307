/**
 * Jest global teardown: removes the PGlite template archive that the global setup wrote to the
 * system temp dir (about 5 MB a run).
 * @module
 */
import { rmSync } from 'node:fs';

export default function globalTeardown(): void {
  const template = process.env.SY_TEST_PGLITE_TEMPLATE;
  if (template) rmSync(template, { force: true });
}
