#!/usr/bin/env node
/**
 * `npm run cli -- <command>`: runs the built admin CLI, compiling first only when the build is
 * missing or a source file (src/, schemas/, tsconfig) is newer than it, so a call takes a fraction
 * of a second instead of a full `tsc` run each time.
 */
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const built = path.join(root, 'dist', 'src', 'cli.js');

/** Newest modification time (ms) of any file below `dir`. */
function newest(dir) {
  let max = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs);
  }
  return max;
}

const sources = Math.max(newest(path.join(root, 'src')), fs.statSync(path.join(root, 'tsconfig.build.json')).mtimeMs);
if (!fs.existsSync(built) || fs.statSync(built).mtimeMs < sources) {
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')],
    { stdio: 'inherit', cwd: root },
  );
}
require(built);
