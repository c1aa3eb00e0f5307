/**
 * The paced load's client, run in a process of its own (bench/lib/paced.js forks it) so that
 * nothing else the benchmark does (autocannon's bookkeeping, reading the children's output) runs
 * on the thread that timestamps responses. Its own pauses would be measured as the target's
 * latency: Node's http client allocates a buffer per socket read (30 kB responses at 500/s), and
 * the resulting collections, full ones driven by the external memory, stalled the old in-process
 * client for 3–12 ms about once a second, which put 52–55 of the 60 slowest of 6,000 requests
 * inside one of its own stalls. This client reads every socket into one reused buffer
 * (`onread`), parses only the status line and Content-Length, and keeps latencies in a
 * preallocated array, so it allocates almost nothing per request. It still counts the times its
 * timer ran late, so a report can tell the machine's stalls from the target's.
 *
 * IPC protocol: `{ run: {url, headers, body, rate, duration, maxSockets, keepLatencies} }` → `{ result }`;
 * `{ close: true }` ends the process. Sockets are kept alive per target across runs.
 */
'use strict';
const { percentile } = require('./percentile');
const net = require('node:net');
const { URL } = require('node:url');
const { Buffer } = require('node:buffer');
const { setTimeout } = require('node:timers');

/** Every socket reads into this buffer; a read is handled before the next one can happen. */
const READ = Buffer.allocUnsafe(256 * 1024);
const CR = 13;
const LF = 10;
/** A timer of 1 ms that fires this much later counts as a stall of the client itself. */
const LATE_MS = 2;

/** One keep-alive connection, one request at a time (no pipelining). */
class Conn {
  constructor(pool) {
    this.pool = pool;
    this.busy = false;
    this.head = '';
    this.ends = 0; // how many bytes of "\r\n\r\n" the header text ends with so far
    this.remaining = -1; // body bytes still to come; -1 while reading the header
    this.status = 0;
    this.started = 0n;
    this.socket = net.connect({
      host: pool.host,
      port: pool.port,
      noDelay: true,
      onread: { buffer: READ, callback: (n) => this.read(n) },
    });
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => this.closed());
  }

  send(started) {
    this.busy = true;
    this.started = started;
    this.head = '';
    this.ends = 0;
    this.remaining = -1;
    this.socket.write(this.pool.request);
  }

  read(n) {
    let at = 0;
    if (this.remaining < 0) {
      while (at < n && this.ends < 4) {
        const b = READ[at];
        this.ends = b === (this.ends % 2 === 0 ? CR : LF) ? this.ends + 1 : b === CR ? 1 : 0;
        at += 1;
      }
      this.head += READ.toString('latin1', 0, at);
      if (this.ends < 4) return;
      this.status = Number(this.head.slice(9, 12));
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(this.head);
      if (length === null) return this.socket.destroy(); // not a response this client can frame
      this.remaining = Number(length[1]);
    }
    this.remaining -= n - at;
    if (this.remaining > 0) return;
    if (this.remaining < 0) return this.socket.destroy(); // bytes past the body: not ours
    this.busy = false;
    this.pool.done(this, this.status);
  }

  closed() {
    this.pool.drop(this);
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
    const lines = [`POST ${u.pathname}${u.search} HTTP/1.1`, `Host: ${u.host}`, 'Connection: keep-alive', 'Content-Type: application/json', `Content-Length: ${bytes.length}`];
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

  done(conn, status) {
    const run = this.run;
    const ms = Number(process.hrtime.bigint() - conn.started) / 1e6;
    if (status >= 200 && status < 300) run.latencies[run.ok++] = ms;
    else run.non2xx += 1;
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

/** One paced run: `rate` requests per second for `duration` seconds, on a schedule, whatever the responses do. */
function paced({ url, headers, body, rate, duration, maxSockets = 32, keepLatencies = false }) {
  const key = `${url} ${JSON.stringify(headers)} ${body}`;
  let pool = pools.get(key);
  if (pool === undefined) pools.set(key, (pool = new Pool(url, headers, body, maxSockets)));
  const total = Math.round(rate * duration);
  const run = { total, sent: 0, finished: 0, ok: 0, non2xx: 0, errors: 0, late: 0, latencies: new Float64Array(total), resolve: null };
  pool.run = run;
  const start = process.hrtime.bigint();
  return new Promise((resolve) => {
    run.resolve = resolve;
    let last = start;
    const tick = () => {
      const now = process.hrtime.bigint();
      if (Number(now - last) / 1e6 > 1 + LATE_MS) run.late += 1;
      last = now;
      const due = Math.min(total, Math.floor((Number(now - start) / 1e9) * rate) + 1);
      while (run.sent < due) {
        run.sent += 1;
        pool.start(process.hrtime.bigint());
      }
      if (run.sent < total) setTimeout(tick, 1);
    };
    tick();
  }).then(() => {
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const sorted = Array.from(run.latencies.subarray(0, run.ok)).sort((a, b) => a - b);
    return {
      requests: run.ok + run.non2xx,
      rps: Math.round(((run.ok + run.non2xx) / seconds) * 10) / 10,
      seconds,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      errors: run.errors,
      non2xx: run.non2xx,
      clientStalls: run.late,
      ...(keepLatencies ? { latencies: sorted } : {}),
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
