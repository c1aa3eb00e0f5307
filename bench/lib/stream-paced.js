/**
 * The chat benchmark's evenly paced load (bench/lib/paced.js's open loop, with each answer's time
 * to first byte or first SSE event beside its whole latency): the client runs in a process of its
 * own (bench/lib/stream-paced-worker.js), started on first use and kept for the benchmark's life;
 * {@link stopStreamPaced} ends it.
 */
'use strict';
const { forkedClient } = require('./paced');

const client = forkedClient('stream-paced-worker.js');

/**
 * One paced run against `url` (see stream-paced.d.ts for the options and the result). `firstByte`
 * `'event'` times the first byte as the first SSE `data:` event; `'byte'` (the default) as the
 * status line's first byte. One run at a time.
 */
const runStreamPaced = (opts) => client.run(opts);

/** End the client process (its keep-alive sockets close with it). */
const stopStreamPaced = () => client.stop();

module.exports = { runStreamPaced, stopStreamPaced };
