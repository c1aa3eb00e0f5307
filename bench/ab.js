/**
 * `npm run bench:ab`: this checkout's gateway against another checkout's build (`AB_BASE`, a path
 * to a built clone or `git worktree` of the commit to compare with; default this checkout), both
 * the benchmark's gateway (auth, validation, rate limit, budget and key limit, usage recording)
 * over one fake upstream, each with its own extra environment (`AB_ENV_A`, `AB_ENV_B`:
 * space-separated `NAME=value`; `SWITCHYARD_CONFIG=<file>` for a YAML-only setting) and Node flags (`AB_NODE_ARGS_A`, `AB_NODE_ARGS_B`, after those of
 * `npm start`, so they override them), so a setting can be compared within one build.
 * The machine drifts by tens of percent within minutes, so the two run in alternating 32-connection
 * windows (A B, B A, A B, …) and the verdict is the median of each round's ratio, with every round
 * printed: an A/B difference is believable only when the rounds agree on its sign.
 *
 * Settings: AB_BASE, AB_ENV_A/B, AB_NODE_ARGS_A/B, AB_ROUNDS (4), BENCH_DURATION (8 seconds per
 * window), BENCH_MODE (`services`, the default, or `embedded`), BENCH_CASE (`embeddings`, the
 * default, with BENCH_BATCH as in `npm run bench`; `chat`, `chat-stream`, `agent`, `agent-stream`,
 * `agent-messages`, `agent-messages-stream`, `agent-responses` or `agent-responses-stream` (the agent
 * cases with BENCH_AGENT_KB): the request of `npm run bench:chat`, `bench:agent`,
 * `bench:agent-messages` or `bench:agent-responses` against bench/chat-upstream.js). Loopback only,
 * bounded, stops by itself.
 */
'use strict';
const path = require('node:path');
const { existsSync } = require('node:fs');
const { readyPort, startChild, stopChild, cpuTimes, peakRssMb } = require('./lib/children');
const { startBenchGateway } = require('./lib/gateway');
const { runLoad } = require('./lib/load');
const { benchCase } = require('./lib/cases');

const BASE = path.resolve(process.env.AB_BASE || path.join(__dirname, '..'));
const ROUNDS = Math.max(1, Number(process.env.AB_ROUNDS || 4));
const DURATION = Number(process.env.BENCH_DURATION || 8);
const MODE = process.env.BENCH_MODE || 'services';
const CASE = benchCase(process.env.BENCH_CASE);
const BODY = CASE.body;

/** `NAME=value NAME2=value2` as an environment object. */
const envOf = (text = '') =>
  Object.fromEntries(
    text
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
const ENV_A = envOf(process.env.AB_ENV_A);
const ENV_B = envOf(process.env.AB_ENV_B);
const argsOf = (text = '') => text.split(/\s+/).filter(Boolean);
const ARGS_A = argsOf(process.env.AB_NODE_ARGS_A);
const ARGS_B = argsOf(process.env.AB_NODE_ARGS_B);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/** One window: requests/s and the gateway's CPU (user + system) per request in ms. */
async function measure(gateway) {
  const before = cpuTimes(gateway.child.pid);
  const r = await runLoad({
    url: gateway.url,
    headers: gateway.headers,
    body: BODY,
    connections: 32,
    duration: DURATION,
  });
  const after = cpuTimes(gateway.child.pid);
  if (r.errors + r.non2xx > 0) throw new Error(`${r.errors + r.non2xx} failed requests in a window`);
  return { rps: r.rps, cpu: ((after.user - before.user + after.system - before.system) * 1000) / r.requests };
}

async function main() {
  if (!existsSync(path.join(BASE, 'dist/src/main.js')))
    throw new Error(`AB_BASE ${BASE} has no build (dist/src/main.js)`);
  const upstream = await startChild('upstream', [path.join(__dirname, CASE.upstream)], {}, { readyLine: readyPort });
  const gateways = [];
  try {
    gateways.push(
      await startBenchGateway(upstream.value, MODE, {
        root: BASE,
        env: ENV_A,
        nodeArgs: ARGS_A,
        route: CASE.route,
        config: CASE.config,
      }),
    );
    gateways.push(
      await startBenchGateway(upstream.value, MODE, {
        env: ENV_B,
        nodeArgs: ARGS_B,
        route: CASE.route,
        config: CASE.config,
      }),
    );
    for (const g of gateways)
      await runLoad({ url: g.url, headers: g.headers, body: BODY, connections: 32, duration: 3 });
    const setup = (env, args) =>
      [...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...args].join(' ') || 'as npm start';
    console.log(
      `case ${CASE.name}, mode ${MODE}, ${ROUNDS} rounds of ${DURATION} s windows at 32 connections; A = ${BASE} (${setup(ENV_A, ARGS_A)}), B = this checkout (${setup(ENV_B, ARGS_B)})`,
    );
    const rpsRatios = [];
    const cpuRatios = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      const got = [];
      for (const i of order) got[i] = await measure(gateways[i]);
      const [a, b] = got;
      rpsRatios.push(b.rps / a.rps);
      cpuRatios.push(b.cpu / a.cpu);
      console.log(
        `round ${round + 1}: A ${a.rps} req/s ${a.cpu.toFixed(3)} ms/req | B ${b.rps} req/s ${b.cpu.toFixed(3)} ms/req | B/A req/s ${(b.rps / a.rps).toFixed(3)}, CPU ${(b.cpu / a.cpu).toFixed(3)}`,
      );
    }
    console.log(
      `median B/A: requests/s ${median(rpsRatios).toFixed(3)}, CPU per request ${median(cpuRatios).toFixed(3)}`,
    );
    console.log(`peak RSS: A ${peakRssMb(gateways[0].child.pid)} MB, B ${peakRssMb(gateways[1].child.pid)} MB`);
  } finally {
    for (const g of gateways) await g.cleanup();
    await stopChild(upstream);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
