/**
 * `npm run bench:cache`: what the embeddings cache buys on a 64-input batch (the ingestion case),
 * at 32 connections, against the same batch through the bare proxy and through the gateway with
 * the cache off.
 *
 *   proxy      autocannon → minimal node:http proxy (bench/proxy.js) → fake upstream (64 × 1536 floats)
 *   uncached   autocannon → Switchyard, cache off → fake upstream
 *   all-hit    autocannon → Switchyard, cache on; the batch was embedded once before, so every
 *              input is a hit and nothing goes upstream
 *   half-hit   autocannon → Switchyard, cache on; each request carries the 32 cached inputs and 32
 *              never seen before (so 32 go upstream in one call, and 32 new entries are written)
 *
 * Each gateway target is its own process (so its peak RSS is its own). BENCH_MODE `embedded`
 * (default: PGlite + in-process stores; the in-process cache bounded to BENCH_CACHE_MAX_BYTES,
 * default 64 MiB) or `services` (Postgres + Redis as in bench/run.js, entries in Redis; half-hit
 * is left out there: it writes about 1 MB of entries per request into the shared Redis).
 * Targets are measured in BENCH_ROUNDS interleaved rounds (default 3) of BENCH_DURATION seconds
 * (default 10) after a warm-up (BENCH_WARMUP, default 5 s); figures are medians over rounds.
 * Reports requests/s, p50/p99 latency, CPU ms per request (the target process only) and peak
 * RSS (VmHWM). Loopback only, bounded, stops by itself; writes bench/cache-results.json.
 */
'use strict';
const { fetch } = require('undici');
const { writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { startChild, readyPort, peakRssMb, cpuSeconds, stopChild } = require('./lib/children');
const { BENCH_INPUT, startBenchGateway } = require('./lib/gateway');
const { runLoad } = require('./lib/load');

const DURATION = Number(process.env.BENCH_DURATION || 10);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 3));
const WARMUP = Number(process.env.BENCH_WARMUP || 5);
const CONNECTIONS = 32;
const BATCH = 64;
const CACHE_MAX_BYTES = Number(process.env.BENCH_CACHE_MAX_BYTES || 64 * 1024 * 1024);
const MODEL = 'openai/text-embedding-3-small';

/** The 64 inputs (about 100 tokens each, as bench/lib/gateway.js's BENCH_BATCH inputs). */
const chunk = (label) =>
  `Chunk ${label}: ${BENCH_INPUT.repeat(5)} ${'Retrieval pipelines embed many such passages. '.repeat(2)}`;
const BATCH_INPUT = Array.from({ length: BATCH }, (_, i) => chunk(String(i)));
const body = (input, model = MODEL) => JSON.stringify({ model, input, encoding_format: 'float' });
let fresh = 0;
/** Half the batch cached (the first 32 inputs), half never seen before. */
const halfHitBody = () =>
  body([
    ...BATCH_INPUT.slice(0, BATCH / 2),
    ...Array.from({ length: BATCH / 2 }, () => chunk(`fresh-${process.pid}-${fresh++}`)),
  ]);

/** One 32-connection window against `t`; non-2xx answers count as errors here. */
async function load(t, duration) {
  const r = await runLoad({
    url: t.url,
    headers: t.headers,
    body: t.body,
    makeBody: t.makeBody,
    connections: CONNECTIONS,
    duration,
  });
  return { requests: r.requests, rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors + r.non2xx };
}

async function measured(t) {
  const before = cpuSeconds(t.handle.child.pid);
  const r = await load(t, DURATION);
  const after = cpuSeconds(t.handle.child.pid);
  return {
    ...r,
    cpuMsPerRequest:
      before === null || after === null || r.requests === 0 ? null : ((after - before) * 1000) / r.requests,
  };
}

/** One checked request; returns the cache header. */
async function check(t, expectHeader) {
  const res = await fetch(t.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...t.headers },
    body: t.makeBody ? t.makeBody() : t.body,
  });
  const json = await res.json().catch(() => null);
  if (res.status !== 200 || json?.data?.length !== BATCH || json.data[0].embedding.length !== 1536) {
    throw new Error(
      `${t.name}: expected 200 with ${BATCH} × 1536 floats, got ${res.status} ${JSON.stringify(json).slice(0, 300)}`,
    );
  }
  const header = res.headers.get('x-switchyard-cache');
  if (expectHeader !== undefined && header !== expectHeader)
    throw new Error(`${t.name}: expected X-Switchyard-Cache ${expectHeader}, got ${header}`);
}

const median = (values) => {
  const v = values.filter((x) => x !== null).sort((a, b) => a - b);
  return v.length === 0 ? null : v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};
const fmt = (v, digits = 1) => (v === null || v === undefined ? '-' : v.toFixed(digits));

async function startServer(script, env) {
  const handle = await startChild(path.basename(script, '.js'), [path.join(__dirname, script)], env, {
    readyLine: readyPort,
  });
  return { handle, port: Number(handle.value) };
}

async function main() {
  const upstream = await startServer('upstream.js', {});
  const proxy = await startServer('proxy.js', { UPSTREAM: `http://127.0.0.1:${upstream.port}` });
  const cacheConfig = { embeddingsCache: { enabled: true, maxBytes: CACHE_MAX_BYTES } };
  const mode = process.env.BENCH_MODE === 'services' ? 'services' : 'embedded';
  const gateways = [];
  try {
    const uncached = await startBenchGateway(upstream.port, mode);
    gateways.push(uncached);
    const allHit = await startBenchGateway(upstream.port, mode, { config: cacheConfig });
    gateways.push(allHit);
    const halfHit = mode === 'embedded' ? await startBenchGateway(upstream.port, mode, { config: cacheConfig }) : null;
    if (halfHit) gateways.push(halfHit);
    const gatewayBody = body(BATCH_INPUT);
    const targets = [
      {
        name: 'proxy',
        handle: proxy.handle,
        url: `http://127.0.0.1:${proxy.port}/v1/embeddings`,
        headers: {},
        body: body(BATCH_INPUT, 'text-embedding-3-small'),
      },
      { name: 'uncached', handle: uncached, url: uncached.url, headers: uncached.headers, body: gatewayBody },
      { name: 'all-hit', handle: allHit, url: allHit.url, headers: allHit.headers, body: gatewayBody },
      ...(halfHit
        ? [{ name: 'half-hit', handle: halfHit, url: halfHit.url, headers: halfHit.headers, makeBody: halfHitBody }]
        : []),
    ];
    // Prime: the batch is embedded once by each caching gateway (its entries are written after that answer).
    await check(targets[2]);
    if (halfHit) await check(targets[3], 'MISS'); // the first 32 are new here too; the requests after it find them cached
    await sleep(500);
    await check(targets[2], 'HIT');
    if (halfHit) await check(targets[3], 'PARTIAL');
    await check(targets[1], undefined);
    for (const t of targets) {
      await load(t, WARMUP);
      t.rounds = [];
    }
    for (let round = 0; round < ROUNDS; round++) for (const t of targets) t.rounds.push(await measured(t));
    const rows = targets.map((t) => ({
      name: t.name,
      rps: median(t.rounds.map((r) => r.rps)),
      p50: median(t.rounds.map((r) => r.p50)),
      p99: median(t.rounds.map((r) => r.p99)),
      cpuMsPerRequest: median(t.rounds.map((r) => r.cpuMsPerRequest)),
      errors: t.rounds.reduce((n, r) => n + r.errors, 0),
      peakRssMb: peakRssMb(t.handle.child.pid),
      roundsRps: t.rounds.map((r) => r.rps),
    }));
    console.log(
      `\nembeddings cache (${mode}), ${BATCH}-input batch, ${CONNECTIONS} connections, ${ROUNDS} rounds × ${DURATION} s (medians); in-process cache bound ${CACHE_MAX_BYTES} bytes`,
    );
    console.log('target    |   req/s | p50 ms | p99 ms | CPU ms/req | errors | peak RSS MB | req/s per round');
    console.log('----------|---------|--------|--------|------------|--------|-------------|----------------');
    for (const r of rows) {
      console.log(
        `${r.name.padEnd(9)} | ${fmt(r.rps).padStart(7)} | ${fmt(r.p50).padStart(6)} | ${fmt(r.p99).padStart(6)} | ${fmt(r.cpuMsPerRequest, 2).padStart(10)} | ${String(r.errors).padStart(6)} | ${fmt(r.peakRssMb).padStart(11)} | ${r.roundsRps.join(', ')}`,
      );
    }
    for (const t of targets.filter((x) => x.handle.metricsUrl)) {
      const text = await (await fetch(t.handle.metricsUrl)).text();
      const lookups = text
        .split('\n')
        .filter((l) => l.startsWith('switchyard_embeddings_cache_lookups_total{'))
        .map((l) => l.replace('switchyard_embeddings_cache_lookups_total', ''))
        .join(' ');
      if (lookups) console.log(`${t.name}: cache lookups per input ${lookups}`);
    }
    const by = Object.fromEntries(rows.map((r) => [r.name, r]));
    const ratio = (a, b) => fmt(by[a].rps / by[b].rps, 2);
    console.log(
      `all-hit = ${ratio('all-hit', 'proxy')} × the proxy's req/s, ${ratio('all-hit', 'uncached')} × the uncached gateway's${halfHit ? `; half-hit = ${ratio('half-hit', 'uncached')} × uncached` : ''}`,
    );
    const loadAvg = os.loadavg()[0];
    console.log(
      `machine load average (1 min) at the end: ${loadAvg.toFixed(2)} on ${os.cpus().length} CPUs (the machine is shared; figures drift)`,
    );
    writeFileSync(
      path.join(__dirname, `cache-results-${mode}.json`),
      `${JSON.stringify({ mode, date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, durationSeconds: DURATION, rounds: ROUNDS, connections: CONNECTIONS, batch: BATCH, cacheMaxBytes: CACHE_MAX_BYTES, rows, loadAverage1m: loadAvg }, null, 2)}\n`,
    );
  } finally {
    for (const g of gateways) await g.cleanup();
    await stopChild(proxy.handle);
    await stopChild(upstream.handle);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
