/**
 * The chat benchmark's evenly paced load (bench/lib/paced.js's open loop, with each answer's time
 * to first byte or first SSE event beside its whole latency): the client runs in a process of its
 * own (bench/lib/stream-paced-worker.js), started on first use and kept for the benchmark's life;
 * {@link stopStreamPaced} ends it.
 */
'use strict';
const path = require('node:path');
const { fork } = require('node:child_process');

let worker = null;
let pending = null;

function start() {
  worker = fork(path.join(__dirname, 'stream-paced-worker.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  worker.on('message', (msg) => {
    const p = pending;
    pending = null;
    if (p) p.resolve(msg.result);
  });
  worker.on('exit', (code) => {
    worker = null;
    const p = pending;
    pending = null;
    if (p) p.reject(new Error(`paced load client exited with ${code}`));
  });
}

/**
 * One paced run against `url` (see stream-paced.d.ts for the options and the result). `firstByte`
 * `'event'` times the first byte as the first SSE `data:` event; `'byte'` (the default) as the
 * status line's first byte. One run at a time.
 */
function runStreamPaced(opts) {
  if (pending) return Promise.reject(new Error('one paced run at a time'));
  if (worker === null) start();
  return new Promise((resolve, reject) => {
    pending = { resolve, reject };
    worker.send({ run: { headers: {}, ...opts } });
  });
}

/** End the client process (its keep-alive sockets close with it). */
function stopStreamPaced() {
  if (worker === null) return Promise.resolve();
  const w = worker;
  return new Promise((resolve) => {
    w.once('exit', () => resolve());
    w.send({ close: true });
  });
}

module.exports = { runStreamPaced, stopStreamPaced };
