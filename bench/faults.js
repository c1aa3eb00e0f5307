/**
 * `npm run bench:faults`: the gateway under a steady load while its stores fail, and a count of
 * what was lost. Switchyard (dist/, services mode) talks to Postgres and Redis through TCP
 * proxies that this script cuts and restores:
 *
 *   0–5 s    all up
 *   5–12 s   Postgres unreachable (usage must wait in the Redis outbox; requests keep working)
 *   12–15 s  all up
 *   15–19 s  Redis unreachable (budgeted requests fail closed with 503; usage events Redis
 *            refuses are buffered in process and written straight to Postgres)
 *   19–25 s  all up
 *
 * Then the gateway is stopped with SIGTERM (graceful: drains and flushes) and every 200 answer is
 * looked for in the `generations` table: accepted = recorded is the pass condition. Loopback only,
 * bounded (FAULT_RATE requests/s, default 200, for 25 s), stops by itself.
 */
'use strict';
const { URL } = require('node:url');
const { setTimeout } = require('node:timers');
const path = require('node:path');
const { Client } = require('pg');
const { fetch } = require('undici');
const { readyPort, startChild, stopChild } = require('./lib/children');
const { tcpProxyProcess } = require('./lib/tcp-proxy-process');
const { spawnGateway } = require('./lib/gateway');
const { prepareServices } = require('./lib/services');

const RATE = Number(process.env.FAULT_RATE || 200);
const PHASES = [
  { at: 5, pg: false, redis: true },
  { at: 12, pg: true, redis: true },
  { at: 15, pg: true, redis: false },
  { at: 19, pg: true, redis: true },
];
const DURATION = 25;
const SHUTDOWN_TIMEOUT_MS = 20_000;

/**
 * A TCP proxy to `port` on loopback, open, with `set(on)` to cut (every connection destroyed) and
 * restore it, and `end()`. In a process of its own: see bench/lib/tcp-proxy-process.js.
 */
async function switchable(port) {
  const proxy = await tcpProxyProcess('127.0.0.1', port);
  await proxy.open();
  return { port: proxy.port, set: (on) => (on ? proxy.open() : proxy.close()), end: proxy.end };
}

async function main() {
  const services = await prepareServices();
  const pgUrl = new URL(services.env.DATABASE_URL);
  const redisUrl = new URL(services.env.REDIS_URL);
  const pgProxy = await switchable(Number(pgUrl.port || 5432));
  const redisProxy = await switchable(Number(redisUrl.port || 6379));
  const viaPg = new URL(pgUrl);
  viaPg.port = String(pgProxy.port);
  const viaRedis = new URL(redisUrl);
  viaRedis.port = String(redisProxy.port);

  const upstream = await startChild('upstream', [path.join(__dirname, 'upstream.js')], {}, { readyLine: readyPort });
  const gateway = await spawnGateway({
    upstreamPort: upstream.value,
    env: {
      DATABASE_URL: viaPg.toString(),
      REDIS_URL: viaRedis.toString(),
      REDIS_KEY_PREFIX: services.env.REDIS_KEY_PREFIX,
      LOG_LEVEL: 'warn',
    },
    config: { redis: { commandTimeoutMs: 500 }, server: { shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS } },
  });
  const { base, api } = gateway;
  const ws = (await api('GET', '/workspaces')).data[0].id;
  await api('PUT', `/workspaces/${ws}/budgets/monthly`, { limit_usd: 1000 });
  const budgeted = (await api('POST', '/keys', { name: 'budgeted', limit: 1000, limit_reset: 'monthly' })).key;
  // A key in a workspace without budgets: nothing applies to it that needs Redis to be decided.
  const free = (await api('POST', '/workspaces', { name: 'No budget', slug: 'no-budget' })).data.id;
  const unlimited = (await api('POST', '/keys', { name: 'unlimited', workspace_id: free })).key;

  const body = JSON.stringify({ model: 'openai/text-embedding-3-small', input: 'fault run' });
  const counts = new Map();
  const phaseOf = (t) => PHASES.filter((p) => p.at <= t).length;
  const ok = new Set();
  const pending = [];
  const started = Date.now();
  let sent = 0;
  let next = 0;
  while (Date.now() - started < DURATION * 1000) {
    const t = (Date.now() - started) / 1000;
    while (next < PHASES.length && t >= PHASES[next].at) {
      const p = PHASES[next++];
      await Promise.all([pgProxy.set(p.pg), redisProxy.set(p.redis)]);
      console.log(`${t.toFixed(1)} s: postgres ${p.pg ? 'up' : 'DOWN'}, redis ${p.redis ? 'up' : 'DOWN'}`);
    }
    const due = Math.floor(t * RATE);
    for (; sent < due; sent++) {
      const key = sent % 2 === 0 ? budgeted : unlimited;
      const phase = phaseOf(t);
      pending.push(
        fetch(`${base}/embeddings`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        })
          .then(async (res) => {
            const json = await res.json().catch(() => null);
            const reason = res.status === 200 ? '' : ` ${json?.error?.metadata?.reason ?? json?.error?.message ?? ''}`;
            const k = `phase ${phase} ${key === budgeted ? 'budgeted' : 'unlimited'} ${res.status}${reason}`;
            counts.set(k, (counts.get(k) || 0) + 1);
            if (res.status === 200 && json && json.id) ok.add(json.id);
          })
          .catch(() => counts.set(`phase ${phase} error`, (counts.get(`phase ${phase} error`) || 0) + 1)),
      );
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.all(pending);
  await Promise.all([pgProxy.set(true), redisProxy.set(true)]);
  // SIGTERM: drain, flush the outbox, exit; allowed its whole shutdown timeout (stopChild alone
  // would SIGKILL after 5 s) plus a margin, and timed.
  const stopStarted = Date.now();
  await gateway.stop(SHUTDOWN_TIMEOUT_MS + 5000);
  const stopMs = Date.now() - stopStarted;

  const db = new Client({ connectionString: services.env.DATABASE_URL });
  await db.connect();
  const rows = (await db.query("SELECT id FROM generations WHERE api_type = 'embeddings'")).rows.map((r) => r.id);
  await db.end();
  const recorded = new Set(rows);
  const lost = [...ok].filter((id) => !recorded.has(id));
  console.log('\nphases: 0 all up · 1 postgres down · 2 all up · 3 redis down · 4 all up');
  for (const [k, v] of [...counts].sort()) console.log(`${k}: ${v}`);
  console.log(`\ngraceful stop took ${stopMs} ms (server.shutdownTimeoutMs ${SHUTDOWN_TIMEOUT_MS})`);
  console.log(
    `200 answers: ${ok.size}; usage records in Postgres: ${recorded.size}; lost: ${lost.length}; duplicates: ${rows.length - recorded.size}`,
  );
  await stopChild(upstream);
  await services.cleanup();
  await Promise.all([pgProxy.end(), redisProxy.end()]);
  if (lost.length > 0) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
