/**
 * Driving bench/lib/window-probe.js from a benchmark: the Node flags that preload it into a
 * target, the signal that starts and stops its profile, and reading what it wrote. Used by
 * `npm run bench:profile` (the gateway) and `LADDER_PROFILE=1 npm run bench:ladder` (every rung).
 */
'use strict';
const path = require('node:path');
const { existsSync, readFileSync } = require('node:fs');
const { setTimeout } = require('node:timers/promises');

/** Node flags that preload the probe (it does nothing until signalled, and needs PROBE_OUT). */
const probeArgs = () => ['-r', path.join(__dirname, 'window-probe.js')];

/** Start or stop the probe's profile in process `pid`. */
const toggleProbe = (pid) => process.kill(pid, 'SIGUSR2');

/**
 * What the probe writing to `out` left once stopped (it writes asynchronously after the signal):
 * the profile (`.heapprofile` with `heap`, else `.cpuprofile`), the collections and the memory peaks.
 */
async function probeFiles(out, heap = false) {
  const file = `${out}.${heap ? 'heapprofile' : 'cpuprofile'}`;
  for (let i = 0; i < 100 && !existsSync(`${out}.gc.json`); i++) await setTimeout(100);
  const read = (name) => JSON.parse(readFileSync(name, 'utf8'));
  return { profile: read(file), gc: read(`${out}.gc.json`), memory: read(`${out}.memory.json`), file };
}

module.exports = { probeArgs, toggleProbe, probeFiles };
