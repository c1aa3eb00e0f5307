/**
 * `npm run bench:ladder`: what each feature of the gateway costs per request. One interleaved run
 * of the featureless Express floor (bench/floor.js), the full gateway, and one gateway per
 * feature with that feature off, all at 32 connections on the same fake upstream. A feature's
 * cost is the full gateway's CPU per request minus its variant's (bench/lib/ladder-costs.js),
 * in µs and as a share of the full gateway's, round by round (the median is reported); the
 * variant's requests/s over the full gateway's is printed beside it.
 *
 * How each feature is switched off: by configuration where one exists (the access log: log level
 * `warn`; the rankings sampler: `rankings.sampleRate: 0`; budget: no workspace budget and no key
 * limit), else inside the benchmark's own entry script (bench/ladder-gateway.js, BENCH_OFF), which
 * builds the gateway as `dist/src/main.js` does and replaces the part the feature runs on.
 *
 * The last rung, `every feature off`, switches all of them off at once: what is left is the
 * gateway's skeleton (the pipeline's routing, auth, the plan, the upstream call through the
 * adapter, the check and rewrite of the answer), so the gap between it and the floor is what no
 * feature's removal can close.
 *
 * Settings: BENCH_MODE (`services`, default, or `embedded`), BENCH_ROUNDS (3), BENCH_DURATION
 * (4 seconds per window), LADDER_REWARM (2 seconds of unmeasured load before each window), BENCH_WARMUP (10 seconds per target: the gateway's CPU per request settles over its first seconds of load), BENCH_BATCH (64: the batch case),
 * BENCH_CASE (`embeddings`, default, `chat`: `POST /chat/completions` for a whole answer of about
 * 500 tokens against bench/chat-upstream.js and the chat floor, bench/chat-floor.js, or `agent`: the
 * same for a coding agent's turn of BENCH_AGENT_KB, bench/lib/agent-request.js; the cache rung is
 * left out, since chat has no cache),
 * LADDER_ONLY (comma-separated rungs, e.g. `usage recording,every feature off`: only those),
 * LADDER_PROFILE (`1`: instead of the rounds, one profiled window per target, the floor first and
 * the full gateway last, and each file's or package's self time per request side by side: where
 * the skeleton's and the features' time over the floor goes; profiles in bench/profiles/).
 * Prints a table and writes bench/ladder-results.json (ladder-results-batch.json, ladder-results-chat.json,
 * ladder-results-agent.json or ladder-results-agent-<kb>kb.json for those cases). Loopback only, bounded, stops by itself.
 */
'use strict';
const os = require('node:os');
const path = require('node:path');
const { mkdirSync, writeFileSync } = require('node:fs');
const { fetch } = require('undici');
const { readyPort, startChild, stopChild, cpuSeconds, peakRssMb } = require('./lib/children');
const { BATCH, startBenchGateway, startFlags } = require('./lib/gateway');
const { runLoad } = require('./lib/load');
const { ladderCosts } = require('./lib/ladder-costs');
const { benchCase, caseLabel } = require('./lib/cases');
const { probeArgs, probeFiles, toggleProbe } = require('./lib/probe');
const { compareUnits } = require('./lib/profile-summary');
const { settle: settleUsage } = require('./lib/rounds');

const MODE = process.env.BENCH_MODE || 'services';
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 3));
const DURATION = Number(process.env.BENCH_DURATION || 4);
const WARMUP = Number(process.env.BENCH_WARMUP || 10);
/**
 * Seconds of unmeasured load before each window: a gateway that sat idle while the others were
 * measured can spend up to twice the CPU per request in its first seconds of load again.
 */
const REWARM = Number(process.env.LADDER_REWARM || 2);
const CONNECTIONS = 32;
/** Profile one window per target instead of measuring rounds (see the module comment). */
const PROFILE = process.env.LADDER_PROFILE === '1';
/** Where a target's probe writes its profile (LADDER_PROFILE). */
const PROFILE_OUT = path.join(__dirname, 'profiles', `ladder-${new Date().toISOString().replace(/[:.]/g, '-')}`);
const probeOut = (name) => `${PROFILE_OUT}-${name.replace(/\W+/g, '-')}`;
const SCRIPT = path.join(__dirname, 'ladder-gateway.js');
/** What the case sends, where (bench/lib/cases.js), and what a right answer looks like. */
const CASE = benchCase(process.env.BENCH_CASE, ['embeddings', 'chat', 'agent']);
const CHAT = CASE.name !== 'embeddings';
const answerOk = CHAT
  ? (json) => typeof json?.choices?.[0]?.message?.content === 'string' && json.choices[0].message.content.length > 0
  : (json) => json?.data?.[0]?.embedding?.length === 1536;
const GATEWAY_BODY = CASE.body;

/** The ladder's rungs: each feature and how its variant switches it off (see the module comment). */
const FEATURES = [
  { feature: 'rate limit', off: 'rate-limit' },
  { feature: 'budget', budgets: false },
  { feature: 'usage recording', off: 'usage' },
  { feature: 'validation', off: 'validation' },
  { feature: 'metrics', off: 'metrics' },
  { feature: 'access log', env: { LOG_LEVEL: 'warn' } },
  { feature: 'rankings sampler', config: { rankings: { sampleRate: 0 } } },
  { feature: 'classifiers', off: 'classifiers' },
  { feature: 'endpoint stats', off: 'endpoint-stats' },
  ...(CHAT ? [] : [{ feature: 'cache lookup', off: 'cache' }]),
];

/** The last rung: every feature above off at once (see the module comment). */
function everyFeatureOff(features) {
  return {
    feature: 'every feature off',
    off: features
      .map((f) => f.off)
      .filter(Boolean)
      .join(','),
    budgets: false,
    env: Object.assign({}, ...features.map((f) => f.env ?? {})),
    config: Object.assign({}, ...features.map((f) => f.config ?? {})),
  };
}

/** One request through the target, checked, so a broken variant fails loudly instead of measuring errors. */
async function check(t) {
  const res = await fetch(t.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...t.headers },
    body: GATEWAY_BODY,
  });
  const json = await res.json().catch(() => null);
  if (res.status !== 200 || !answerOk(json))
    throw new Error(
      `${t.name}: expected a 200 ${CASE.name} answer, got ${res.status} ${JSON.stringify(json).slice(0, 300)}`,
    );
}

/**
 * Wait (at most 10 s) until gateway `t` has written the usage records of the window it just served
 * (its `switchyard_usage_queue_depth` is 0): that backlog is written for some seconds after the load
 * stops, and would otherwise load the machine in the next target's window.
 */
async function settle(t) {
  if (t.handle.metricsUrl) await settleUsage(t.handle.metricsUrl, { timeoutMs: 10_000, pauseMs: 0 });
}

/** One 32-connection window: requests/s and CPU ms per request (user + system, from /proc, until its usage records are written). */
async function window(t) {
  if (REWARM > 0) {
    await runLoad({ url: t.url, headers: t.headers, body: GATEWAY_BODY, connections: CONNECTIONS, duration: REWARM });
    await settle(t);
  }
  const before = cpuSeconds(t.handle.child.pid);
  const r = await runLoad({
    url: t.url,
    headers: t.headers,
    body: GATEWAY_BODY,
    connections: CONNECTIONS,
    duration: DURATION,
  });
  if (r.errors + r.non2xx > 0) throw new Error(`${t.name}: ${r.errors + r.non2xx} failed requests in a window`);
  // The window's usage records are written (to Postgres, by this process) after its load: counted in its CPU.
  await settle(t);
  const after = cpuSeconds(t.handle.child.pid);
  return { rps: r.rps, cpuMs: ((after - before) * 1000) / r.requests };
}

/**
 * A round's order: every target once (the floor, the full gateway, each variant), reversed every
 * other round so that no target always comes first or last. Every target gets the same load: a
 * design that measured the full gateway between every two variants made it look cheaper than
 * every variant, since on a loaded machine a gateway's code keeps getting faster for minutes of
 * load (V8's optimising compiler runs on the same starved cores), and the full one had ten times more.
 */
function roundOrder(full, floor, variants, round) {
  const order = [floor, full, ...variants];
  return round % 2 === 0 ? order : order.reverse();
}

const pad = (s, n) => String(s).padEnd(n);

/** LADDER_PROFILE: one profiled window per target in turn, then their self times per request side by side. */
async function profileEach(targets) {
  mkdirSync(path.dirname(PROFILE_OUT), { recursive: true });
  const columns = [];
  for (const t of targets) {
    await runLoad({ url: t.url, headers: t.headers, body: GATEWAY_BODY, connections: CONNECTIONS, duration: REWARM });
    toggleProbe(t.handle.child.pid);
    const r = await runLoad({
      url: t.url,
      headers: t.headers,
      body: GATEWAY_BODY,
      connections: CONNECTIONS,
      duration: DURATION,
    });
    toggleProbe(t.handle.child.pid);
    if (r.errors + r.non2xx > 0)
      throw new Error(`${t.name}: ${r.errors + r.non2xx} failed requests in its profiled window`);
    const { profile } = await probeFiles(probeOut(t.name));
    console.log(`${t.name}: ${r.rps} req/s in its profiled window of ${DURATION} s`);
    columns.push({ name: t.name === 'every feature off' ? 'skeleton' : t.name, profile, requests: r.requests });
    await settle(t);
  }
  console.log(
    `\nmode ${MODE}, case ${CASE.name}, one profiled window each (${DURATION} s at ${CONNECTIONS} connections)`,
  );
  console.log(compareUnits(columns));
  console.log(
    `\nprofiles in ${path.relative(process.cwd(), path.dirname(PROFILE_OUT))}/${path.basename(PROFILE_OUT)}-*.cpuprofile`,
  );
}

async function main() {
  const only = process.env.LADDER_ONLY ? process.env.LADDER_ONLY.split(',').map((s) => s.trim()) : null;
  const rungs = [...FEATURES, everyFeatureOff(FEATURES)];
  const features = only ? rungs.filter((f) => only.includes(f.feature)) : rungs;
  if (features.length === 0) throw new Error(`LADDER_ONLY matches no rung (${rungs.map((f) => f.feature).join(', ')})`);
  const upstream = await startChild('upstream', [path.join(__dirname, CASE.upstream)], {}, { readyLine: readyPort });
  const forward = { UPSTREAM: `http://127.0.0.1:${upstream.value}` };
  const probe = PROFILE ? probeArgs() : [];
  const floorEnv = PROFILE ? { ...forward, PROBE_OUT: probeOut('floor') } : forward;
  const floorHandle = await startChild(
    'floor',
    [...startFlags(path.resolve(__dirname, '..')), ...probe, path.join(__dirname, CASE.floor)],
    floorEnv,
    { readyLine: readyPort },
  );
  const floor = {
    name: 'floor',
    handle: floorHandle,
    url: `http://127.0.0.1:${floorHandle.value}/api/v1${CASE.route}`,
    headers: {},
  };
  const gateways = [];
  try {
    const start = async (name, f = {}) => {
      const env = { ...(f.env ?? {}), BENCH_OFF: f.off ?? '', ...(PROFILE ? { PROBE_OUT: probeOut(name) } : {}) };
      const config = { ...CASE.config, ...(f.config ?? {}) };
      const handle = await startBenchGateway(upstream.value, MODE, {
        script: SCRIPT,
        nodeArgs: probe,
        env,
        config,
        budgets: f.budgets ?? true,
        route: CASE.route,
      });
      const t = { name, handle, url: handle.url, headers: handle.headers };
      gateways.push(t);
      return t;
    };
    const full = await start('full');
    const variants = [];
    for (const f of features) variants.push(await start(f.feature, f));
    const targets = [floor, full, ...variants];
    for (const t of targets) {
      await check(t);
      await runLoad({ url: t.url, headers: t.headers, body: GATEWAY_BODY, connections: CONNECTIONS, duration: WARMUP });
    }
    if (PROFILE) return await profileEach([floor, ...variants, full]);
    console.log(
      `mode ${MODE}, case ${CASE.name}, ${ROUNDS} rounds of ${DURATION} s windows at ${CONNECTIONS} connections; ${variants.length} variants`,
    );
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      const got = { full: [], floor: null, variants: {} };
      for (const t of roundOrder(full, floor, variants, round)) {
        const w = await window(t);
        if (t === floor) got.floor = w;
        else if (t === full) got.full.push(w);
        else got.variants[t.name] = w;
      }
      rounds.push(got);
      const fullMs = got.full.map((w) => w.cpuMs.toFixed(3)).join('/');
      console.log(
        `round ${round + 1}: floor ${got.floor.rps} req/s ${got.floor.cpuMs.toFixed(3)} ms/req; full ${got.full.map((w) => w.rps).join('/')} req/s ${fullMs} ms/req; ` +
          `${variants.map((v) => `${v.name} ${got.variants[v.name].cpuMs.toFixed(3)}`).join(', ')}; load ${os.loadavg()[0].toFixed(2)}`,
      );
    }
    const costs = ladderCosts(rounds);
    console.log(`\nfeature            | µs/req | share of the gateway's CPU | req/s without ÷ with | per round µs`);
    console.log('-------------------|--------|----------------------------|----------------------|-------------');
    for (const f of costs.features) {
      console.log(
        `${pad(f.feature, 18)} | ${String(f.usPerRequest).padStart(6)} | ${`${(f.share * 100).toFixed(1)} %`.padStart(26)} | ${f.rpsRatioWithout.toFixed(3).padStart(20)} | ${f.rounds.join(', ')}`,
      );
    }
    console.log(
      `gateway ${costs.gatewayUsPerRequest} µs/req, floor ${costs.floorUsPerRequest} µs/req, gateway ÷ floor req/s ${costs.gatewayOfFloorRps}; ` +
        `the features ${costs.featuresUsPerRequest} µs, the rest of the gap over the floor ${costs.restOverFloorUsPerRequest} µs`,
    );
    if (costs.everyFeatureOff) {
      const e = costs.everyFeatureOff;
      console.log(
        `every feature off at once: ${e.usPerRequest} µs/req less (${(e.share * 100).toFixed(1)} %; rounds ${e.rounds.join(', ')}); ` +
          `the skeleton ${e.skeletonUsPerRequest} µs/req, its req/s ÷ the floor's ${e.skeletonOfFloorRps}`,
      );
    }
    console.log(
      `peak RSS MB: ${[floor, ...gateways].map((t) => `${t.name} ${peakRssMb(t.handle.child.pid)}`).join(', ')}`,
    );
    console.log(`machine load average (1 min) at the end: ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} CPUs`);
    const out = {
      date: new Date().toISOString(),
      node: process.version,
      mode: MODE,
      case: CASE.name,
      ...(CASE.kb !== undefined ? { agentKb: CASE.kb } : {}),
      batch: BATCH,
      rounds: ROUNDS,
      durationSeconds: DURATION,
      costs,
      windows: rounds,
      loadAverage1m: os.loadavg()[0],
    };
    const file = CHAT
      ? `ladder-results-${caseLabel(CASE)}.json`
      : BATCH
        ? 'ladder-results-batch.json'
        : 'ladder-results.json';
    writeFileSync(path.join(__dirname, file), `${JSON.stringify(out, null, 2)}\n`);
    console.log(`wrote bench/${file}`);
  } finally {
    for (const g of gateways) await g.handle.cleanup().catch(() => undefined);
    await stopChild(floorHandle);
    await stopChild(upstream);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
