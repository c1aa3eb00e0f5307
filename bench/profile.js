/**
 * `npm run bench:profile` (and `bench:chat-profile`, BENCH_CASE=chat, chat-stream, agent, agent-stream,
 * agent-messages, agent-messages-stream, agent-responses or agent-responses-stream): where the
 * gateway's time goes at 32 connections, measured over the load window only. Starts the case's
 * fake upstream (bench/lib/cases.js) and the benchmark's gateway (as `npm run bench`: auth,
 * validation, rate limit, budget and key limit, usage recording), warms up, then runs
 * PROFILE_ROUNDS windows of BENCH_DURATION seconds and reports, per window: requests/s, the
 * gateway's user and system CPU per request, Redis's and Postgres's CPU per request (services
 * mode), and its garbage collections. The first window is also profiled (a V8 CPU profile, or
 * with PROFILE_HEAP=1 allocation sampling, PROFILE_HEAP=promoted only the allocations that outlived
 * a scavenge) through bench/lib/window-probe.js, so start-up and warm-up are not in it; the profile
 * is written to bench/profiles/ and summarised, with the peaks of the gateway's memory parts over that window:
 * a CPU profile by package and function (self time), and by the gateway's own functions with what
 * they call (inclusive time), which tells one step of the pipeline from another.
 *
 * With PROFILE_RATE set (e.g. 500) the windows are an evenly paced load at that rate instead
 * (bench/lib/paced.js, as the benchmark's latency scenario): each prints p50/p99, and the profile
 * is also read for the event loop's long busy stretches, which a steady load's tail waits behind.
 *
 * Settings: BENCH_CASE (`embeddings`, the default, with BENCH_BATCH; `chat`; `chat-stream`; `agent`,
 * `agent-stream`, `agent-messages`, `agent-messages-stream`, `agent-responses` and
 * `agent-responses-stream`, with BENCH_AGENT_KB),
 * BENCH_MODE (`services`, the default here, or `embedded`), BENCH_DURATION (10),
 * PROFILE_ROUNDS (2), PROFILE_HEAP (0), PROFILE_RATE (unset: 32 connections), PROFILE_LONG_MS (2:
 * the shortest busy stretch counted as long), PROFILE_NODE_ARGS
 * (extra Node flags for the gateway, e.g. `--no-single-threaded-gc`), PROFILE_TOP (30 rows).
 * Loopback only, bounded, stops by itself.
 */
'use strict';
const path = require('node:path');
const { mkdirSync } = require('node:fs');
const { readyPort, startChild, stopChild, cpuTimes } = require('./lib/children');
const { startBenchGateway } = require('./lib/gateway');
const { benchCase } = require('./lib/cases');
const { runLoad } = require('./lib/load');
const { runPaced, stopPaced } = require('./lib/paced');
const { serviceCpuSeconds } = require('./lib/service-cpu');
const { summariseCpu, summariseHeap, longTasks, inclusiveOwn } = require('./lib/profile-summary');
const { probeArgs, probeFiles, toggleProbe } = require('./lib/probe');

const CASE = benchCase(process.env.BENCH_CASE);
const BODY = CASE.body;
const MODE = process.env.BENCH_MODE || 'services';
const DURATION = Number(process.env.BENCH_DURATION || 10);
const ROUNDS = Math.max(1, Number(process.env.PROFILE_ROUNDS || 2));
/** window-probe.js's PROBE_HEAP: `1` all allocations, `promoted` only those that outlived a scavenge, `0` a CPU profile. */
const PROBE_HEAP = ['1', 'promoted'].includes(process.env.PROFILE_HEAP) ? process.env.PROFILE_HEAP : '0';
const HEAP = PROBE_HEAP !== '0';
const TOP = Number(process.env.PROFILE_TOP || 30);
const RATE = Number(process.env.PROFILE_RATE || 0);
const LONG_MS = Number(process.env.PROFILE_LONG_MS || 2);

const perRequest = (seconds, requests) => ((seconds * 1000) / requests).toFixed(3);

/** One window (32 connections, or paced at PROFILE_RATE) with CPU accounting; `probe` toggles the profile around it. */
async function measureWindow(gateway, probe) {
  const pid = gateway.child.pid;
  if (probe) toggleProbe(pid);
  const before = { own: cpuTimes(pid), services: serviceCpuSeconds() };
  const load = { url: gateway.url, headers: gateway.headers, body: BODY, duration: DURATION };
  const result = RATE > 0 ? await runPaced({ ...load, rate: RATE }) : await runLoad({ ...load, connections: 32 });
  const after = { own: cpuTimes(pid), services: serviceCpuSeconds() };
  if (probe) toggleProbe(pid);
  const n = result.requests;
  console.log(
    `${String(result.rps).padStart(8)} req/s  gateway CPU ms/req: user ${perRequest(after.own.user - before.own.user, n)}, ` +
      `system ${perRequest(after.own.system - before.own.system, n)}; Redis ${perRequest(after.services.redis - before.services.redis, n)}, ` +
      `Postgres ${perRequest(after.services.postgres - before.services.postgres, n)}; errors ${result.errors + result.non2xx}` +
      (RATE > 0 ? `; p50 ${result.p50} ms, p99 ${result.p99} ms` : ''),
  );
  return result;
}

async function main() {
  const dir = path.join(__dirname, 'profiles');
  mkdirSync(dir, { recursive: true });
  const out = path.join(dir, `window-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const upstream = await startChild('upstream', [path.join(__dirname, CASE.upstream)], {}, { readyLine: readyPort });
  const nodeArgs = [...probeArgs(), ...(process.env.PROFILE_NODE_ARGS || '').split(/\s+/).filter(Boolean)];
  let gateway;
  try {
    gateway = await startBenchGateway(upstream.value, MODE, {
      nodeArgs,
      env: { PROBE_OUT: out, PROBE_HEAP },
      route: CASE.route,
      config: CASE.config,
    });
    const shape = RATE > 0 ? `paced at ${RATE} req/s` : 'at 32 connections';
    console.log(
      `case ${CASE.name}, mode ${MODE}, ${ROUNDS} window${ROUNDS === 1 ? '' : 's'} of ${DURATION} s ${shape} (the first profiled)`,
    );
    await runLoad({ url: gateway.url, headers: gateway.headers, body: BODY, connections: 32, duration: 3 });
    let profiled;
    for (let round = 0; round < ROUNDS; round++) {
      const result = await measureWindow(gateway, round === 0);
      if (round === 0) profiled = result;
    }
    const { profile, gc, memory, file } = await probeFiles(out, HEAP);
    const gcLine = Object.entries(gc)
      .map(([kind, s]) => `${kind} ${s.count} (${s.ms.toFixed(0)} ms)`)
      .join(', ');
    console.log(`garbage collections in the profiled window: ${gcLine || 'none'}`);
    const mb = (bytes) => `${Math.round(bytes / 1048576)} MB`;
    console.log(
      `memory peaks in the profiled window (each part's own peak): RSS ${mb(memory.rss)}, main thread V8 heap ${mb(memory.heapTotal)} ` +
        `(${mb(memory.heapUsed)} used), ArrayBuffers ${mb(memory.arrayBuffers)}; RSS minus the heap and ArrayBuffers at their peaks: ` +
        `${mb(memory.rss - memory.heapTotal - memory.arrayBuffers)} or more (native, code, worker threads)`,
    );
    if (PROBE_HEAP === 'promoted') console.log('promoted only: the sampled allocations that outlived a scavenge');
    console.log(
      HEAP
        ? summariseHeap(profile, profiled.requests, TOP)
        : `${summariseCpu(profile, TOP)}\n${inclusiveOwn(profile, TOP)}`,
    );
    if (RATE > 0 && !HEAP) console.log(longTasks(profile, LONG_MS, TOP));
    console.log(`\nprofile written to ${path.relative(process.cwd(), file)} (open it in Chrome DevTools or VS Code)`);
  } finally {
    await stopPaced();
    if (gateway) await gateway.cleanup();
    await stopChild(upstream);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
