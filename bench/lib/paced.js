/**
 * An evenly paced (open-loop) load: requests are started on a fixed schedule, `rate` per
 * second, whatever the responses do, over a keep-alive pool. autocannon's `overallRate` instead
 * lets each connection send its whole per-second quota back to back at the start of every
 * second, so its latencies at "500 req/s" are those of a 500-request burst; this generator
 * measures the latency a steady 500 req/s actually sees.
 *
 * The client runs in a child process of its own (bench/lib/paced-worker.js, which says why),
 * started on first use and kept for the benchmark's life; {@link stopPaced} ends it.
 */
'use strict';
const path = require('node:path');
const { fork } = require('node:child_process');

/**
 * A client process running `workerFile` (the paced-load worker beside this file), forked on the
 * first run and kept until `stop`; one run at a time.
 * @param {string} workerFile
 */
function forkedClient(workerFile) {
  let worker = null;
  let pending = null;

  function start() {
    worker = fork(path.join(__dirname, workerFile), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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

  function run(opts) {
    if (pending) return Promise.reject(new Error('one paced run at a time'));
    if (worker === null) start();
    return new Promise((resolve, reject) => {
      pending = { resolve, reject };
      worker.send({ run: { headers: {}, ...opts } });
    });
  }

  /** End the client process (its keep-alive sockets close with it). */
  function stop() {
    if (worker === null) return Promise.resolve();
    const w = worker;
    return new Promise((resolve) => {
      w.once('exit', () => resolve());
      w.send({ close: true });
    });
  }

  return { run, stop };
}

const client = forkedClient('paced-worker.js');

/**
 * One paced run against `url` (paced.d.ts lists the options and the result). Resolves to requests,
 * rps, seconds, p50 and p99 (ms) of whole answers and of their first byte (`firstByte: 'event'`:
 * their first SSE `data:` event), errors, non2xx, and `clientStalls`: how often the client's own
 * 1 ms timer ran more than 2 ms late (the machine, not the target, held it up). With
 * `keepLatencies` it also returns every latency (ms, sorted). One run at a time.
 */
const runPaced = (opts) => client.run(opts);

/** End the client process (its keep-alive sockets close with it). */
const stopPaced = () => client.stop();

module.exports = { runPaced, stopPaced };
