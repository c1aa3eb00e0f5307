/**
 * `npm run bench:chat-profile` (BENCH_CASE=chat or chat-stream): where the gateway's time goes on
 * `POST /chat/completions`, as `npm run bench:profile` shows it for embeddings. Starts the chat
 * fake upstream (bench/chat-upstream.js) and the benchmark's gateway with every feature on, warms
 * up, then runs PROFILE_ROUNDS windows of BENCH_DURATION s at 32 connections, each reporting
 * requests/s and the gateway's (and Redis's and PostgreSQL's) CPU per request. The first window is
 * profiled (bench/lib/window-probe.js, so start-up and warm-up are left out) and summarised by
 * package and function (self time), and by the gateway's own functions including what they call
 * (inclusive time), which is what tells one step of the pipeline from another.
 *
 * Settings: BENCH_CASE (chat), BENCH_MODE (services), BENCH_DURATION (10), PROFILE_ROUNDS (2),
 * PROFILE_TOP (30). Loopback only, bounded, stops by itself.
 */
'use strict';
const path = require('node:path');
const { mkdirSync, readFileSync, existsSync } = require('node:fs');
const { setTimeout } = require('node:timers/promises');
const { readyPort, startChild, stopChild, cpuTimes } = require('./lib/children');
const { startBenchGateway } = require('./lib/gateway');
const { runLoad } = require('./lib/load');
const { serviceCpuSeconds } = require('./lib/service-cpu');
const { summariseCpu } = require('./lib/profile-summary');
const { CHAT_ROUTE, chatGatewayBody } = require('./lib/chat-request');

const CASE = process.env.BENCH_CASE || 'chat';
const STREAM = CASE === 'chat-stream';
const MODE = process.env.BENCH_MODE || 'services';
const DURATION = Number(process.env.BENCH_DURATION || 10);
const ROUNDS = Math.max(1, Number(process.env.PROFILE_ROUNDS || 2));
const TOP = Number(process.env.PROFILE_TOP || 30);
const BODY = chatGatewayBody(STREAM);

const perRequest = (seconds, requests) => ((seconds * 1000) / requests).toFixed(3);

/**
 * Inclusive time of the gateway's own functions (frames under `dist/src/`): each sample counts
 * once for every distinct such function on its stack.
 */
function inclusiveOwn(profile, n) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const totals = new Map();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    if (byId.get(id).callFrame.functionName === '(idle)') return;
    busy += dt;
    const seen = new Set();
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const { functionName, url, lineNumber } = byId.get(at).callFrame;
      const m = /\/dist\/(src\/.*)\.js$/.exec(url);
      if (!m) continue;
      const key = `${functionName || '(anonymous)'} ${m[1]}:${lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      totals.set(key, (totals.get(key) ?? 0) + dt);
    }
  });
  const rows = [...totals].sort((a, b) => b[1] - a[1]).slice(0, n);
  return ['-- the gateway\'s own functions, inclusive (share of busy time)', ...rows.map(([k, v]) => `${((100 * v) / busy).toFixed(1).padStart(6)} %  ${k}`)].join('\n');
}

async function measureWindow(gateway, probe) {
  const pid = gateway.child.pid;
  if (probe) process.kill(pid, 'SIGUSR2');
  const before = { own: cpuTimes(pid), services: serviceCpuSeconds() };
  const result = await runLoad({ url: gateway.url, headers: gateway.headers, body: BODY, duration: DURATION, connections: 32 });
  const after = { own: cpuTimes(pid), services: serviceCpuSeconds() };
  if (probe) process.kill(pid, 'SIGUSR2');
  const n = result.requests;
  console.log(
    `${String(result.rps).padStart(8)} req/s  gateway CPU ms/req: user ${perRequest(after.own.user - before.own.user, n)}, ` +
      `system ${perRequest(after.own.system - before.own.system, n)}; Redis ${perRequest(after.services.redis - before.services.redis, n)}, ` +
      `Postgres ${perRequest(after.services.postgres - before.services.postgres, n)}; errors ${result.errors + result.non2xx}`,
  );
}

async function main() {
  const dir = path.join(__dirname, 'profiles');
  mkdirSync(dir, { recursive: true });
  const out = path.join(dir, `${CASE}-window-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const upstream = await startChild('chat-upstream', [path.join(__dirname, 'chat-upstream.js')], {}, { readyLine: readyPort });
  let gateway;
  try {
    gateway = await startBenchGateway(upstream.value, MODE, { nodeArgs: ['-r', path.join(__dirname, 'lib/window-probe.js')], env: { PROBE_OUT: out, PROBE_HEAP: '0' }, route: CHAT_ROUTE });
    console.log(`case ${CASE}, mode ${MODE}, ${ROUNDS} window${ROUNDS === 1 ? '' : 's'} of ${DURATION} s at 32 connections (the first profiled)`);
    await runLoad({ url: gateway.url, headers: gateway.headers, body: BODY, connections: 32, duration: 5 });
    for (let round = 0; round < ROUNDS; round++) await measureWindow(gateway, round === 0);
    for (let i = 0; i < 100 && !existsSync(`${out}.gc.json`); i++) await setTimeout(100);
    const profile = JSON.parse(readFileSync(`${out}.cpuprofile`, 'utf8'));
    const gc = JSON.parse(readFileSync(`${out}.gc.json`, 'utf8'));
    console.log(`garbage collections in the profiled window: ${Object.entries(gc).map(([kind, s]) => `${kind} ${s.count} (${s.ms.toFixed(0)} ms)`).join(', ') || 'none'}`);
    console.log(summariseCpu(profile, TOP));
    console.log(inclusiveOwn(profile, TOP));
    console.log(`\nprofile written to ${path.relative(process.cwd(), `${out}.cpuprofile`)}`);
  } finally {
    if (gateway) await gateway.cleanup();
    await stopChild(upstream);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
