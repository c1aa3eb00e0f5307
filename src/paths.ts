/**
 * Locates files that ship beside the code (config/, schemas/, migrations) both when running
 * from TypeScript sources (tests) and from the compiled `dist/` tree.
 * @module
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

function findRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'schemas'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`switchyard: cannot find the project root above ${start}`);
    dir = parent;
  }
}

/** Absolute path of the project root (the folder holding package.json and schemas/). */
export const PROJECT_ROOT = findRoot(__dirname);

/** Resolve a path relative to the project root. */
export function fromRoot(...parts: string[]): string {
  return path.join(PROJECT_ROOT, ...parts);
}
