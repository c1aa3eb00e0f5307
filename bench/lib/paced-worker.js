/**
 * The benchmarks' paced client, run in a process of its own (bench/lib/paced.js forks it) so that
 * nothing else the benchmark does (autocannon's bookkeeping, reading the children's output) runs
 * on the thread that timestamps responses. Its own pauses would be measured as the target's
 * latency: Node's http client allocates a buffer per socket read (30 kB responses at 500/s), and
 * the resulting collections, full ones driven by the external memory, stalled the old in-process
 * client for 3–12 ms about once a second, which put 52–55 of the 60 slowest of 6,000 requests
 * inside one of its own stalls. This client reads every socket into one reused buffer
 * (`onread`), frames each answer with bench/lib/response-reader.js (Content-Length or chunked,
 * no copy of the body), and keeps latencies in preallocated arrays, so it allocates almost
 * nothing per request. It still counts the times its timer ran late, so a report can tell the
 * machine's stalls from the target's.
 *
 * Beside each answer's whole latency it keeps its time to first byte: to the status line, or with
 * `firstByte: 'event'` to the first SSE `data:` event (a gateway sends a stream's headers before
 * it has any content). Only then does it read bodies for `data:` lines, and it reports the fewest
 * and most an answer had, so a run whose streams broke off shows it.
 *
 * IPC protocol: `{ run: {url, headers, body, rate, duration, maxSockets, firstByte, keepLatencies, answerTimeoutMs} }` → `{ result }`;
 * `{ close: true }` ends the process. Sockets are kept alive per target across runs.
 */
'use strict';
const { percentile } = require('./percentile');
const { ResponseReader } = require('./response-reader');
const net = require('node:net');
const { URL } = require('node:url');
const { Buffer } = require('node:buffer');
const { setTimeout, clearTimeout } = require('node:timers');

/** Every socket reads into this buffer; a read is handled before the next one can happen. */
const READ = Buffer.allocUnsafe(256 * 1024);
/** A timer of 1 ms that fires this much later counts as a stall of the client itself. */
const LATE_MS = 2;
/**
 * How long after its last request is due a run waits for answers by default (autocannon's timeout
 * too): then every request still unanswered counts as an error, so a target that hangs cannot
 * hang the run.
 */
const ANSWER_TIMEOUT_MS = 10_000;

const now = () => process.hrtime.bigint();
const msSince = (t0, t1) => Number(t1 - t0) / 1e6;

/** One keep-alive connection, one request at a time (no pipelining). */
class Conn {
  constructor(pool) {
    this.pool = pool;
    this.busy = false;
    this.reader = new ResponseReader();
    this.started = 0n;
    this.firstByte = 0n;
    this.firstEvent = 0n;
    this.onFirstEvent = () => {
      this.firstEvent = now();
    };
    this.socket = net.connect({
      host: pool.host,
      port: pool.port,
      noDelay: true,
      onread: { buffer: READ, callback: (n) => this.read(n) },
    });
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => this.pool.drop(this));
  }

  send(started) {
    this.busy = true;
    this.started = started;
    this.firstByte = 0n;
    this.firstEvent = 0n;
    this.reader.reset(this.pool.run.firstByte === 'event');
    this.socket.write(this.pool.request);
  }

  read(n) {
    if (!this.busy) return this.socket.destroy(); // bytes nobody asked for
    if (this.firstByte === 0n) this.firstByte = now();
    let at;
    try {
      at = this.reader.read(READ, 0, n, this.onFirstEvent);
    } catch {
      return this.socket.destroy(); // not a response this client can frame
    }
    if (!this.reader.complete) return;
    if (at < n) return this.socket.destroy(); // bytes past the body: not ours
    this.busy = false;
    this.pool.done(this);
  }
}

/** The connections to one target and the run under way on them. */
class Pool {
  constructor(url, headers, body, maxSockets) {
    const u = new URL(url);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.maxSockets = maxSockets;
    const bytes = Buffer.from(body);
    const lines = [
      `POST ${u.pathname}${u.search} HTTP/1.1`,
      `Host: ${u.host}`,
      'Connection: keep-alive',
      'Content-Type: application/json',
      `Content-Length: ${bytes.length}`,
    ];
    for (const [k, v] of Object.entries(headers || {})) lines.push(`${k}: ${v}`);
    this.request = Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]);
    this.conns = new Set();
    this.idle = [];
    this.waiting = [];
    this.run = null;
  }

  start(started) {
    const conn = this.idle.pop() ?? (this.conns.size < this.maxSockets ? this.open() : null);
    if (conn === null) this.waiting.push(started);
    else conn.send(started);
  }

  open() {
    const conn = new Conn(this);
    this.conns.add(conn);
    return conn;
  }

  done(conn) {
    const run = this.run;
    const end = now();
    const { status, events } = conn.reader;
    if (status >= 200 && status < 300) {
      const first = run.firstByte === 'event' ? conn.firstEvent : conn.firstByte;
      run.latencies[run.ok] = msSince(conn.started, end);
      run.ttfb[run.ok] = first === 0n ? msSince(conn.started, end) : msSince(conn.started, first);
      if (first === 0n) run.noEvent += 1;
      run.ok += 1;
      run.eventsMin = Math.min(run.eventsMin, events);
      run.eventsMax = Math.max(run.eventsMax, events);
    } else run.non2xx += 1;
    this.settle(conn);
  }

  drop(conn) {
    this.conns.delete(conn);
    this.idle = this.idle.filter((c) => c !== conn);
    if (conn.busy) {
      conn.busy = false;
      this.run.errors += 1;
      this.settle(null);
    }
  }

  /** The run's time is up: requests not yet sent and the connections still waiting for answers fail. */
  expire() {
    const run = this.run;
    run.errors += this.waiting.length;
    run.finished += this.waiting.length;
    this.waiting = [];
    for (const conn of this.conns) if (conn.busy) conn.socket.destroy();
    if (run.finished === run.total && run.sent === run.total) run.resolve();
  }

  settle(conn) {
    const run = this.run;
    run.finished += 1;
    if (this.waiting.length > 0) {
      const started = this.waiting.shift();
      if (conn !== null) conn.send(started);
      else this.open().send(started);
    } else if (conn !== null) this.idle.push(conn);
    if (run.finished === run.total && run.sent === run.total) run.resolve();
  }
}

const pools = new Map();

const sorted = (values, n) => Array.from(values.subarray(0, n)).sort((a, b) => a - b);

/** One paced run: `rate` requests per second for `duration` seconds, on a schedule, whatever the responses do. */
function paced({
  url,
  headers,
  body,
  rate,
  duration,
  maxSockets = 32,
  firstByte = 'byte',
  keepLatencies = false,
  answerTimeoutMs = ANSWER_TIMEOUT_MS,
}) {
  const key = `${url} ${JSON.stringify(headers)} ${body}`;
  let pool = pools.get(key);
  if (pool === undefined) pools.set(key, (pool = new Pool(url, headers, body, maxSockets)));
  const total = Math.round(rate * duration);
  const run = {
    total,
    sent: 0,
    finished: 0,
    ok: 0,
    non2xx: 0,
    errors: 0,
    late: 0,
    noEvent: 0,
    eventsMin: Infinity,
    eventsMax: 0,
    firstByte,
    latencies: new Float64Array(total),
    ttfb: new Float64Array(total),
    resolve: null,
  };
  pool.run = run;
  const start = now();
  let deadline = null;
  return new Promise((resolve) => {
    run.resolve = resolve;
    let last = start;
    const tick = () => {
      const t = now();
      if (msSince(last, t) > 1 + LATE_MS) run.late += 1;
      last = t;
      const due = Math.min(total, Math.floor((Number(t - start) / 1e9) * rate) + 1);
      while (run.sent < due) {
        run.sent += 1;
        pool.start(now());
      }
      if (run.sent < total) setTimeout(tick, 1);
      else deadline = setTimeout(() => pool.expire(), answerTimeoutMs);
    };
    tick();
  }).then(() => {
    clearTimeout(deadline);
    const seconds = Number(now() - start) / 1e9;
    const latencies = sorted(run.latencies, run.ok);
    const ttfb = sorted(run.ttfb, run.ok);
    return {
      requests: run.ok + run.non2xx,
      rps: Math.round(((run.ok + run.non2xx) / seconds) * 10) / 10,
      seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      ttfbP50: percentile(ttfb, 50),
      ttfbP99: percentile(ttfb, 99),
      errors: run.errors,
      non2xx: run.non2xx,
      noEvent: run.noEvent,
      eventsMin: run.ok === 0 || firstByte !== 'event' ? null : run.eventsMin,
      eventsMax: run.ok === 0 || firstByte !== 'event' ? null : run.eventsMax,
      clientStalls: run.late,
      ...(keepLatencies ? { latencies, ttfb } : {}),
    };
  });
}

process.on('disconnect', () => process.exit(0));
process.on('message', (msg) => {
  if (msg.close) {
    for (const pool of pools.values()) for (const conn of pool.conns) conn.socket.destroy();
    process.disconnect();
    return;
  }
  paced(msg.run).then((result) => process.send({ result }));
});
