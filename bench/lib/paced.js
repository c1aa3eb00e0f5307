/**
 * An evenly paced (open-loop) load: requests are started on a fixed schedule, `rate` per
 * second, whatever the responses do, over a keep-alive pool. autocannon's `overallRate` instead
 * lets each connection send its whole per-second quota back to back at the start of every
 * second, so its latencies at "500 req/s" are those of a 500-request burst; this generator
 * measures the latency a steady 500 req/s actually sees.
 */
'use strict';
const http = require('node:http');
const { setTimeout } = require('node:timers');
const { URL } = require('node:url');
const { Buffer } = require('node:buffer');

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const at = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[Math.max(0, at)] * 1000) / 1000;
}

/**
 * @param {{url: string, headers?: object, body: string, rate: number, duration: number, maxSockets?: number}} opts
 */
async function runPaced(opts) {
  const url = new URL(opts.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.maxSockets || 32 });
  const body = Buffer.from(opts.body);
  const headers = { 'content-type': 'application/json', 'content-length': body.length, ...(opts.headers || {}) };
  const latencies = [];
  let errors = 0;
  let non2xx = 0;
  let inFlight = 0;
  const one = () =>
    new Promise((resolve) => {
      const started = process.hrtime.bigint();
      inFlight += 1;
      const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, agent }, (res) => {
        res.on('data', () => undefined);
        res.on('end', () => {
          inFlight -= 1;
          if (res.statusCode >= 200 && res.statusCode < 300) latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
          else non2xx += 1;
          resolve();
        });
      });
      req.on('error', () => {
        inFlight -= 1;
        errors += 1;
        resolve();
      });
      req.end(body);
    });
  const pending = [];
  const start = process.hrtime.bigint();
  const total = Math.round(opts.rate * opts.duration);
  let sent = 0;
  while (sent < total) {
    const elapsedS = Number(process.hrtime.bigint() - start) / 1e9;
    const due = Math.min(total, Math.floor(elapsedS * opts.rate) + 1);
    while (sent < due) {
      pending.push(one());
      sent += 1;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  void inFlight;
  return {
    requests: latencies.length + non2xx,
    rps: Math.round(((latencies.length + non2xx) / seconds) * 10) / 10,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    non2xx,
  };
}

module.exports = { runPaced };
