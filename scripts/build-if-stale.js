#!/usr/bin/env node
/**
 * `npm start`'s prestart: runs `npm run build` only when the build is missing or older than its
 * inputs, so a second `npm start` listens within seconds instead of waiting for tsc and Vite
 * (tens of seconds, over a minute on a busy machine) to rebuild what has not changed.
 *
 * The inputs are every file and directory under src/, dashboard/, schemas/ and config/, plus the
 * tsconfig files, package.json and package-lock.json. A directory's own time changes when a file
 * is added, removed or renamed in it, so a deleted source counts too. After a successful build a
 * stamp (dist/.build-stamp) records when that build started: a file edited while it ran is newer
 * than the stamp, and the next start builds again. A failed build writes no stamp.
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/** The stamp's path, below `root`. */
const STAMP = path.join('dist', '.build-stamp');
/** Input directories, walked whole. */
const INPUT_DIRS = ['src', 'dashboard', 'schemas', 'config'];
/** Input files at the root; a tsconfig*.json is found by its name. */
const INPUT_FILES = ['package.json', 'package-lock.json'];
/** What a build produces; a missing one means building, whatever the stamp says. */
const OUTPUTS = [path.join('dist', 'src', 'main.js'), path.join('dist', 'dashboard', 'index.html')];

/** Newest modification time (ms) of `dir` and everything below it; 0 when it does not exist. */
function newestUnder(dir) {
  let stat;
  try {
    stat = fs.statSync(dir);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    newest = Math.max(newest, newestUnder(path.join(dir, entry.name)));
  }
  return newest;
}

/** Newest modification time (ms) of the build's inputs below `root`, and the path holding it. */
function newestInput(root) {
  const roots = fs.readdirSync(root).filter((name) => /^tsconfig.*\.json$/.test(name));
  let newest = { ms: 0, path: null };
  for (const name of [...INPUT_DIRS, ...INPUT_FILES, ...roots]) {
    const ms = newestUnder(path.join(root, name));
    if (ms > newest.ms) newest = { ms, path: name };
  }
  return newest;
}

/**
 * Why the build below `root` must run, or null when it is current: an output or the stamp is
 * missing or unreadable, or an input changed after the stamped build started.
 */
function staleReason(root) {
  for (const output of OUTPUTS) if (!fs.existsSync(path.join(root, output))) return `${output} is missing`;
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(path.join(root, STAMP), 'utf8'));
  } catch {
    return 'no build stamp';
  }
  if (typeof stamp.startedAtMs !== 'number') return 'no build stamp';
  const input = newestInput(root);
  return input.ms > stamp.startedAtMs ? `${input.path} changed since the last build` : null;
}

/** Record that a build of `root` started at `startedAtMs` succeeded. */
function writeStamp(root, startedAtMs) {
  fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
  fs.writeFileSync(path.join(root, STAMP), `${JSON.stringify({ startedAtMs })}\n`);
}

/** Build `root` with `npm run build` when stale; returns the exit status (0 when nothing was needed). */
function buildIfStale(root, log = (line) => process.stdout.write(`${line}\n`)) {
  const reason = staleReason(root);
  if (reason === null) {
    log('switchyard: the build is current (npm run build to force one)');
    return 0;
  }
  log(`switchyard: building (${reason})`);
  const startedAtMs = Date.now();
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) return result.status ?? 1;
  writeStamp(root, startedAtMs);
  return 0;
}

module.exports = { STAMP, OUTPUTS, newestInput, staleReason, writeStamp, buildIfStale };

if (require.main === module) process.exitCode = buildIfStale(path.resolve(__dirname, '..'));
