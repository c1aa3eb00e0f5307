/**
 * One load run with autocannon, plus latency percentiles at microsecond resolution: autocannon's
 * own histogram rounds to whole milliseconds, too coarse for a 1 ms overhead target, so every
 * response time (a float in ms from its 'response' event) is also kept and sorted here.
 */
'use strict';
const { percentile } = require('./percentile');
const autocannon = require('autocannon');

/**
 * Run autocannon against `url`.
 * `makeBody`, when given, makes each request's body instead of sending `body` every time.
 * `keepLatencies` adds the sorted latencies (ms) and the run's seconds, for pooling turns.
 * @param {{url: string, headers?: object, body?: string, makeBody?: () => string, connections: number, duration: number, overallRate?: number, keepLatencies?: boolean}} opts
 */
function runLoad(opts) {
  const latencies = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: opts.url,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(opts.headers || {}) },
        body: opts.body,
        requests: opts.makeBody
          ? [{ method: 'POST', setupRequest: (req) => ({ ...req, body: opts.makeBody() }) }]
          : undefined,
        connections: opts.connections,
        duration: opts.duration,
        overallRate: opts.overallRate,
        timeout: 10,
      },
      (err, result) => {
        if (err) return reject(err);
        latencies.sort((a, b) => a - b);
        resolve({
          requests: result.requests.total,
          rps: Math.round((result.requests.total / result.duration) * 10) / 10,
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          errors: result.errors + result.timeouts,
          non2xx: result.non2xx,
          ...(opts.keepLatencies ? { latencies, seconds: result.duration } : {}),
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
}

module.exports = { runLoad };
