/**
 * `npm run bench`: the gateway's cost on the embeddings hot path, against two baselines.
 *
 *   direct   autocannon → fake upstream (bench/upstream.js: OpenAI-compatible, 1536 floats)
 *   proxy    autocannon → minimal node:http proxy (bench/proxy.js) → fake upstream
 *   floor    autocannon → the featureless Express floor (bench/floor.js: express.json, one undici
 *            POST, the upstream's bytes back) → fake upstream; the gateway is judged against it
 *   checked  (BENCH_VALIDATING_FLOOR=1) the cheapest validating gateway (bench/validating-floor.js)
 *   gateway  autocannon → Switchyard (dist/src/main.js, a child process) → fake upstream, with
 *            auth, validation, the per-key rate limit, budget + key-limit checks (a monthly
 *            workspace budget and a key limit are set) and usage recording all on
 *
 * Each target is measured at 32 connections (max throughput) and at a fixed rate, half the
 * floor's capacity in that round (BENCH_RATE overrides it) (latency; evenly paced by
 * bench/lib/paced.js from a client process of its own), in BENCH_ROUNDS rounds (default 3), each
 * scenario's time split into BENCH_SLICES turns (default 5) with the targets interleaved
 * (bench/lib/rounds.js; the gateway's usage backlog is written before each 32-connection round and
 * after each of its turns there), after a warm-up (BENCH_WARMUP, 10 s each); then once with
 * autocannon's `overallRate` (which sends each second's quota in one burst). Reports requests/s,
 * p50/p99 latency, CPU per request (with its user and main-thread parts), peak RSS (VmHWM) and the
 * gateway's added latency, plus what the gateway's own histograms saw at the fixed rate (its time
 * minus the upstream call, and the upstream call), prints a table and writes bench/results.json. Loopback only, bounded
 * (BENCH_DURATION seconds per scenario and round, default 10), stops by itself.
 *
 * BENCH_MODE: `embedded` (default: PGlite + in-process Kv, no services needed), `services`
 * (Postgres + Redis: BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres, in
 * which a throw-away database is created; BENCH_REDIS_URL, default redis://127.0.0.1:6379), or `all`.
 */
'use strict';
const { fetch } = require('undici');
const { writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { readyPort, startChild, peakRssMb, stopChild } = require('./lib/children');
const { BATCH, GATEWAY_BODY, startBenchGateway, startFlags } = require('./lib/gateway');
const { runLoad } = require('./lib/load');
const { runPaced, stopPaced } = require('./lib/paced');
const { cpuDuring, cpuLine, maxRound, median, msPerRequest, pooledTurns } = require('./lib/rounds');
const { histogramDelta, mergeDeltas, quantileBound } = require('./lib/histogram');

const DURATION = Number(process.env.BENCH_DURATION || 10);
/** Rounds of the 32-connection and paced scenarios, the targets interleaved (see measureAll). */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 3));
/**
 * Seconds of 32-connection load each target gets before the rounds. The gateway's CPU per request
 * falls for 10–25 s of load after start (0.25–0.30 ms in its first 2 s, 0.17–0.19 after 20 s: the
 * JIT and the heap settling), against about a second for the proxy; 3 s left round 1 measuring
 * that transient. Ten measure the steady state a long-running replica serves, for every target alike.
 */
const WARMUP = Number(process.env.BENCH_WARMUP || 10);
const CONNECTIONS = 32;
/** A fixed paced rate (req/s) instead of half the floor's capacity in each round. */
const FIXED_RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : null;
/** Turns each target's time in a round is split into, for both scenarios (see lib/rounds.js). */
const SLICES = Math.max(1, Number(process.env.BENCH_SLICES || 5));
/** Also measure bench/validating-floor.js (the cheapest validating gateway), between the floor and the gateway. */
const VALIDATING_FLOOR = process.env.BENCH_VALIDATING_FLOOR === '1';

/** One request through the target, checked, so a broken setup fails loudly instead of measuring errors. */
async function check(name, url, headers, body) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const json = await res.json().catch(() => null);
  const length = json?.data?.[0]?.embedding?.length;
  if (res.status !== 200 || length !== 1536)
    throw new Error(`${name}: expected 200 with 1536 floats, got ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
}

/**
 * Measure every target in rounds. This shared machine's speed drifts by tens of percent within
 * seconds, so in each round every target's time is split into BENCH_SLICES turns, the order
 * reversed every other turn (lib/rounds.js): all targets sample the same stretch of the machine.
 * Each round's figures are kept; a scenario's figure is the median over rounds, and the
 * comparisons (share of the floor and the proxy, added latency) are medians of the per-round
 * comparisons. `burst` (autocannon's overallRate) runs once per target.
 */
async function measureAll(targets) {
  for (const t of targets) {
    await check(t.name, t.url, t.headers, t.body);
    await runLoad({ url: t.url, headers: t.headers, body: t.body, connections: CONNECTIONS, duration: WARMUP });
    t.rounds = { max: [], fixed: [] };
    t.ownTime = [];
  }
  for (let round = 0; round < ROUNDS; round++) {
    const max = await maxRound(targets, { connections: CONNECTIONS, duration: DURATION, slices: SLICES });
    for (const t of targets) t.rounds.max.push(max.get(t));
    const floor = targets.find((t) => t.name === 'floor');
    await pacedRound(targets, FIXED_RATE ?? Math.max(1, Math.round(floor.rounds.max[round].rps / 2)));
  }
  return targets.map((t) => ({
    name: t.name,
    max: medianRun(t.rounds.max),
    fixed: medianRun(t.rounds.fixed),
    rounds: t.rounds,
    ownTimeAtFixedRate: t.ownTime.length > 0 ? ownTimeSummary(t.ownTime) : undefined,
    burst: null,
    peakRssMb: null,
  }));
}

/**
 * One paced round: each target gets DURATION seconds at `rate`, in SLICES turns (lib/rounds.js),
 * its latencies pooled. It follows a 32-connection round, whose last gateway turn was settled.
 */
async function pacedRound(targets, rate) {
  const pooled = await pooledTurns(targets, SLICES, (t) =>
    cpuDuring(t.handle, () =>
      withOwnTime(t, () =>
        runPaced({
          url: t.url,
          headers: t.headers,
          body: t.body,
          rate,
          duration: DURATION / SLICES,
          keepLatencies: true,
        }),
      ),
    ),
  );
  for (const t of targets) {
    const { figures, turns } = pooled.get(t);
    t.rounds.fixed.push({ rate, ...figures, clientStalls: turns.reduce((n, r) => n + r.clientStalls, 0) });
  }
}

/** Median of each numeric field over rounds (errors are summed). */
function medianRun(runs) {
  const out = {};
  for (const key of Object.keys(runs[0])) {
    const values = runs.map((r) => r[key]).filter((v) => typeof v === 'number');
    out[key] =
      key === 'errors' || key === 'non2xx' || key === 'requests' ? values.reduce((a, b) => a + b, 0) : median(values);
  }
  return out;
}

/** Run `load` and add the target's CPU milliseconds per request. */
async function withCpu(handle, load) {
  const { result, seconds } = await cpuDuring(handle, load);
  result.cpuMsPerRequest = msPerRequest(seconds, result.requests);
  return result;
}

/** The gateway's histograms of its own time and of its upstream calls (see lib/histogram.js). */
const OWN_TIME = {
  overhead: 'switchyard_gateway_overhead_seconds',
  upstream: 'switchyard_upstream_request_duration_seconds',
};

/**
 * Run `load`; for a target with a metrics endpoint (the gateway), add to `target.ownTime` what its
 * own histograms saw meanwhile, to tell its code's share of a latency figure from the hops around it.
 */
async function withOwnTime(target, load) {
  const url = target.handle.metricsUrl;
  if (!url) return load();
  const scrape = async () => (await fetch(url)).text();
  const before = await scrape();
  const result = await load();
  const after = await scrape();
  target.ownTime.push(
    Object.fromEntries(Object.entries(OWN_TIME).map(([k, name]) => [k, histogramDelta(before, after, name)])),
  );
  return result;
}

/**
 * The gateway's own time over its paced rounds (one delta per round and histogram): per histogram,
 * how many observations, the share at or under each bound up to 5 ms, and the bucket bound of the
 * p99 (ms).
 */
function ownTimeSummary(rounds) {
  const summary = {};
  for (const k of Object.keys(OWN_TIME)) {
    const merged = mergeDeltas(rounds.map((r) => r[k]));
    const p99 = quantileBound(merged, 0.99);
    summary[k] = {
      observations: merged.total,
      atOrUnder: merged.shares
        .filter((x) => x.le <= 0.005)
        .map((x) => ({ ms: x.le * 1000, share: Math.round(x.share * 10000) / 10000 })),
      p99AtOrUnderMs: p99 === null ? null : p99 === Infinity ? 'inf' : p99 * 1000,
    };
  }
  return summary;
}

function ownTimeLine(summary) {
  const part = (label, s) => {
    const shares = s.atOrUnder.map(({ ms, share }) => `<=${ms} ms ${(share * 100).toFixed(2)} %`).join(', ');
    return `${label} p99 <= ${s.p99AtOrUnderMs ?? '-'} ms (${shares})`;
  };
  return `gateway's own histograms at the paced rate (${summary.overhead.observations} requests): ${part('own overhead', summary.overhead)}; ${part('upstream call', summary.upstream)}`;
}

function fmt(v, digits = 2) {
  return v === null || v === undefined ? '-' : typeof v === 'number' ? v.toFixed(digits) : String(v);
}

/** Median over rounds of `f(i)`, round i's figures of the targets being back to back. */
function perRoundOf(rounds, f) {
  return median(rounds.map((_, i) => f(i)));
}

function report(mode, rows) {
  const row = (name) => rows.find((r) => r.name === name);
  const [direct, proxy, floor, gateway, checked] = [
    row('direct'),
    row('proxy'),
    row('floor'),
    row('gateway'),
    row('checked'),
  ];
  const perRound = (f) => perRoundOf(gateway.rounds.max, f);
  const each = (values, digits) => values.map((v) => fmt(v, digits)).join(', ');
  // Added latency of a target at the paced rate: its p50/p99 minus the upstream's own, round by round.
  const added = (t, q) => perRound((i) => t.rounds.fixed[i][q] - direct.rounds.fixed[i][q]);
  const shareOf = (t, base) => gateway.rounds.max.map((_, i) => t.rounds.max[i].rps / base.rounds.max[i].rps);
  const gatewayOfFloor = shareOf(gateway, floor);
  const gatewayOfProxy = shareOf(gateway, proxy);
  const floorOfProxy = shareOf(floor, proxy);
  const p99Ratio = perRound(
    (i) =>
      (gateway.rounds.fixed[i].p99 - direct.rounds.fixed[i].p99) /
      Math.max(0.001, floor.rounds.fixed[i].p99 - direct.rounds.fixed[i].p99),
  );
  // The standing targets (issue #44): a share of the floor, memory over the floor's, the tail at half its capacity.
  const shareTarget = BATCH ? 0.6 : 0.7;
  const rssTarget = BATCH && floor.peakRssMb !== null ? floor.peakRssMb + 50 : null;
  const targets = {
    throughputShareOfFloor: {
      value: median(gatewayOfFloor),
      target: `>= ${shareTarget}`,
      pass: median(gatewayOfFloor) >= shareTarget,
    },
    throughputShareOfProxy: { value: median(gatewayOfProxy) },
    addedP99RatioToFloor: { value: p99Ratio, target: '<= 2', pass: p99Ratio <= 2 },
    gatewayPeakRssMb: {
      value: gateway.peakRssMb,
      floor: floor.peakRssMb,
      target: rssTarget === null ? 'reported' : `<= ${rssTarget} (the floor's + 50)`,
      pass: rssTarget === null || (gateway.peakRssMb !== null && gateway.peakRssMb <= rssTarget),
    },
  };
  const rates = gateway.rounds.fixed.map((f) => f.rate);
  console.log(
    `\nmode: ${mode}  (${DURATION} s per scenario, ${CONNECTIONS} connections; paced at ${FIXED_RATE === null ? "half the floor's capacity" : 'BENCH_RATE'}: ${rates.join(', ')} req/s by round)`,
  );
  console.log(
    'target    | 32 conn req/s |  p50 ms |  p99 ms | CPU ms/req | paced p50 ms | paced p99 ms | burst p50 | burst p99 | errors | peak RSS MB',
  );
  console.log(
    '----------|---------------|---------|---------|------------|--------------|--------------|-----------|-----------|--------|------------',
  );
  for (const r of rows) {
    const errors = [r.max, r.fixed, r.burst].reduce((n, x) => n + x.errors + x.non2xx, 0);
    console.log(
      `${r.name.padEnd(9)} | ${fmt(r.max.rps, 1).padStart(13)} | ${fmt(r.max.p50).padStart(7)} | ${fmt(r.max.p99).padStart(7)} | ${fmt(r.max.cpuMsPerRequest, 3).padStart(10)} | ` +
        `${fmt(r.fixed.p50, 3).padStart(12)} | ${fmt(r.fixed.p99, 3).padStart(12)} | ${fmt(r.burst.p50).padStart(9)} | ${fmt(r.burst.p99).padStart(9)} | ` +
        `${String(errors).padStart(6)} | ${fmt(r.peakRssMb, 1).padStart(11)}`,
    );
  }
  console.log(
    "paced = evenly paced (bench/lib/paced.js); burst = autocannon overallRate at the same rate, which sends each second's quota at once",
  );
  console.log(
    `figures are medians of ${ROUNDS} interleaved rounds; comparisons are medians of the per-round comparisons`,
  );
  console.log(`case: ${BATCH ? `batch of ${BATCH} inputs` : 'single input'}`);
  console.log(
    `gateway ÷ floor = ${fmt(targets.throughputShareOfFloor.value, 3)} (target ${targets.throughputShareOfFloor.target}) ${targets.throughputShareOfFloor.pass ? 'PASS' : 'MISS'}  [rounds: ${each(gatewayOfFloor, 3)}]`,
  );
  console.log(
    `gateway ÷ proxy = ${fmt(targets.throughputShareOfProxy.value, 3)}  [rounds: ${each(gatewayOfProxy, 3)}]; floor ÷ proxy = ${fmt(median(floorOfProxy), 3)}`,
  );
  if (checked)
    console.log(
      `validating floor ÷ floor = ${fmt(median(shareOf(checked, floor)), 3)}; gateway ÷ validating floor = ${fmt(median(shareOf(gateway, checked)), 3)}`,
    );
  console.log(cpuLine([proxy, floor, gateway].map((r) => ({ name: r.name, ...r.max }))));
  console.log(
    `added latency at the paced rate vs direct: gateway p50 ${fmt(added(gateway, 'p50'), 3)} ms, p99 ${fmt(added(gateway, 'p99'), 3)} ms; floor p50 ${fmt(added(floor, 'p50'), 3)} ms, p99 ${fmt(added(floor, 'p99'), 3)} ms; ` +
      `proxy p50 ${fmt(added(proxy, 'p50'), 3)} ms, p99 ${fmt(added(proxy, 'p99'), 3)} ms; gateway/floor added p99 ${fmt(p99Ratio, 2)}x (target <= 2) ${targets.addedP99RatioToFloor.pass ? 'PASS' : 'MISS'}`,
  );
  console.log(
    `paced client stalls (its 1 ms timer over 2 ms late: the machine held it up) per round: ${rows.map((r) => `${r.name} ${r.rounds.fixed.map((x) => x.clientStalls).join('/')}`).join(', ')}`,
  );
  if (gateway.ownTimeAtFixedRate) console.log(ownTimeLine(gateway.ownTimeAtFixedRate));
  const load = os.loadavg()[0];
  console.log(
    `machine load average (1 min) at the end: ${load.toFixed(2)} on ${os.cpus().length} CPUs${load > os.cpus().length * 0.75 ? ' (busy: figures are pessimistic)' : ''}`,
  );
  console.log(
    `peak RSS: floor ${fmt(floor.peakRssMb, 1)} MB, gateway ${fmt(gateway.peakRssMb, 1)} MB${rssTarget === null ? '' : ` (target ${targets.gatewayPeakRssMb.target}) ${targets.gatewayPeakRssMb.pass ? 'PASS' : 'MISS'}`}`,
  );
  return { mode, rounds: ROUNDS, rows, targets, loadAverage1m: os.loadavg()[0] };
}

async function benchMode(mode, upstream, proxy, floor, checked, body) {
  const nodeArgs = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${path.join(__dirname, 'profiles')}`]
    : [];
  const gateway = await startBenchGateway(upstream.port, mode, { nodeArgs });
  try {
    const targets = [
      {
        name: 'direct',
        handle: upstream.handle,
        url: `http://127.0.0.1:${upstream.port}/v1/embeddings`,
        headers: {},
        body,
      },
      { name: 'proxy', handle: proxy.handle, url: `http://127.0.0.1:${proxy.port}/v1/embeddings`, headers: {}, body },
      {
        name: 'floor',
        handle: floor.handle,
        url: `http://127.0.0.1:${floor.port}/api/v1/embeddings`,
        headers: {},
        body: GATEWAY_BODY,
      },
      ...(checked
        ? [
            {
              name: 'checked',
              handle: checked.handle,
              url: `http://127.0.0.1:${checked.port}/api/v1/embeddings`,
              headers: {},
              body: GATEWAY_BODY,
            },
          ]
        : []),
      { name: 'gateway', handle: gateway, url: gateway.url, headers: gateway.headers, body: GATEWAY_BODY },
    ];
    const rows = await measureAll(targets);
    const burstRate = median(rows[0].rounds.fixed.map((f) => f.rate));
    for (const [i, t] of targets.entries()) {
      const row = rows[i];
      row.burst = await withCpu(t.handle, () =>
        runLoad({
          url: t.url,
          headers: t.headers,
          body: t.body,
          connections: CONNECTIONS,
          duration: DURATION,
          overallRate: burstRate,
        }),
      );
      row.peakRssMb = peakRssMb(t.handle.child.pid);
    }
    return report(mode, rows);
  } finally {
    await gateway.cleanup();
  }
}

/** Start one of the benchmark's servers (`bench/<script>`, which prints `READY <port>`); its handle and port. */
async function startServer(script, env, nodeArgs = []) {
  const handle = await startChild(path.basename(script, '.js'), [...nodeArgs, path.join(__dirname, script)], env, {
    readyLine: readyPort,
  });
  return { handle, port: Number(handle.value) };
}

async function main() {
  const modeArg = process.env.BENCH_MODE || 'embedded';
  const modes = modeArg === 'all' ? ['embedded', 'services'] : [modeArg];
  const body = JSON.stringify({
    model: 'text-embedding-3-small',
    input: JSON.parse(GATEWAY_BODY).input,
    encoding_format: 'float',
  });
  const upstream = await startServer('upstream.js', {});
  const forward = { UPSTREAM: `http://127.0.0.1:${upstream.port}` };
  const proxy = await startServer('proxy.js', forward);
  const flags = startFlags(path.resolve(__dirname, '..'));
  const floor = await startServer('floor.js', forward, flags);
  const checked = VALIDATING_FLOOR ? await startServer('validating-floor.js', forward, flags) : null;
  const results = [];
  try {
    for (const mode of modes) results.push(await benchMode(mode, upstream, proxy, floor, checked, body));
  } finally {
    await stopPaced();
    if (checked) await stopChild(checked.handle);
    await stopChild(floor.handle);
    await stopChild(proxy.handle);
    await stopChild(upstream.handle);
  }
  const out = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    durationSeconds: DURATION,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    fixedRate: FIXED_RATE,
    results,
  };
  writeFileSync(path.join(__dirname, 'results.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log('\nwrote bench/results.json');
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
