/**
 * The interleaving that `npm run bench` (run.js) and the chat benchmarks (chat.js) share. The
 * machines drift by tens of percent within seconds, so a target's time in a round is split into
 * short turns, the order of the targets reversed every other turn: every target samples the same
 * stretch of the machine's state, and one slow stretch cannot land on one target alone.
 */
'use strict';
const { fetch } = require('undici');
const { setTimeout: sleep } = require('node:timers/promises');
const { cpuTimes } = require('./children');
const { runLoad } = require('./load');
const { percentile } = require('./percentile');

/** The median of the finite numbers among `values`, else null. */
function median(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** CPU milliseconds per request, to the microsecond (null without a figure or requests). */
function msPerRequest(seconds, requests) {
  return seconds === null || requests === 0 ? null : Math.round(((seconds * 1000) / requests) * 1000) / 1000;
}

/** A process's CPU seconds so far: user + system, user alone, and its main thread's (null where there is no /proc). */
function cpuNow(pid) {
  const all = cpuTimes(pid);
  const main = cpuTimes(pid, pid);
  return all === null || main === null
    ? null
    : { seconds: all.user + all.system, userSeconds: all.user, mainThreadSeconds: main.user + main.system };
}

/**
 * CPU seconds the target used during `load` (user + system, from /proc; null where there is no
 * /proc), and load's result. `userSeconds` and `mainThreadSeconds` split it: a machine that slows
 * a target's JavaScript shows in its main thread's user time, one that slows system calls or
 * wake-ups in the rest.
 */
async function cpuDuring(handle, load) {
  const before = cpuNow(handle.child.pid);
  const result = await load();
  const after = cpuNow(handle.child.pid);
  if (before === null || after === null) return { result, seconds: null, userSeconds: null, mainThreadSeconds: null };
  return {
    result,
    seconds: after.seconds - before.seconds,
    userSeconds: after.userSeconds - before.userSeconds,
    mainThreadSeconds: after.mainThreadSeconds - before.mainThreadSeconds,
  };
}

/** The CPU figures of {@link cpuDuring}, summed over turns (a null, no /proc, stays null). */
const CPU_KEYS = /** @type {const} */ (['seconds', 'userSeconds', 'mainThreadSeconds']);

/**
 * Wait (at most `timeoutMs`) until the gateway at `metricsUrl` has written the usage records of
 * the load just run (its `switchyard_usage_queue_depth` is 0), then `pauseMs` more: that backlog
 * drains for some seconds after the load stops and would otherwise load the machine under
 * whatever runs next.
 */
async function settle(metricsUrl, { timeoutMs = 30_000, pauseMs = 1000 } = {}) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(250)) {
    const depth = /^switchyard_usage_queue_depth(?:\{[^}]*\})? (\S+)$/m.exec(await (await fetch(metricsUrl)).text());
    if (depth === null || Number(depth[1]) === 0) break;
  }
  if (pauseMs > 0) await sleep(pauseMs);
}

/** Call `run(target)` for every target in `slices` turns, the order reversed every other turn (A B C, C B A, A B C, …). */
async function inTurns(targets, slices, run) {
  for (let turn = 0; turn < slices; turn++) {
    for (const t of turn % 2 === 0 ? targets : [...targets].reverse()) await run(t);
  }
}

/**
 * Run `run(target)` (a turn: a load run whose result has `requests`, `seconds`, `errors`, `non2xx`
 * and `latencies`, with the CPU `seconds` the target spent, as {@link cpuDuring} gives) for every
 * target in `slices` turns ({@link inTurns}), and pool each target's turns. Returns a Map from
 * target to its `figures` (requests/s over the turns' own time, p50 and p99 in ms of the pooled
 * latencies, errors, non-2xx answers, CPU ms per request with its user and main-thread parts)
 * and its `turns`' results.
 */
async function pooledTurns(targets, slices, run) {
  const pools = new Map(
    targets.map((t) => [
      t,
      {
        latencies: [],
        requests: 0,
        seconds: 0,
        errors: 0,
        non2xx: 0,
        cpu: { seconds: 0, userSeconds: 0, mainThreadSeconds: 0 },
        turns: [],
      },
    ]),
  );
  await inTurns(targets, slices, async (t) => {
    const turn = await run(t);
    const r = turn.result;
    const p = pools.get(t);
    for (const x of r.latencies) p.latencies.push(x);
    for (const k of ['requests', 'seconds', 'errors', 'non2xx']) p[k] += r[k];
    for (const k of CPU_KEYS) p.cpu[k] = turn[k] == null || p.cpu[k] === null ? null : p.cpu[k] + turn[k];
    p.turns.push(r);
  });
  return new Map(
    targets.map((t) => {
      const p = pools.get(t);
      const sorted = p.latencies.sort((a, b) => a - b);
      const figures = {
        requests: p.requests,
        rps: Math.round((p.requests / p.seconds) * 10) / 10,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        errors: p.errors,
        non2xx: p.non2xx,
        cpuMsPerRequest: msPerRequest(p.cpu.seconds, p.requests),
        userMsPerRequest: msPerRequest(p.cpu.userSeconds, p.requests),
        mainThreadMsPerRequest: msPerRequest(p.cpu.mainThreadSeconds, p.requests),
      };
      return [t, { figures, turns: p.turns }];
    }),
  );
}

/**
 * One round of the 32-connection scenario: `duration` seconds per target in `slices` turns. A
 * target with a metrics endpoint (the gateway) has its usage backlog {@link settle}d before the
 * round (what the load before it left) and after each of its turns, so that backlog never loads
 * another target's turn. Returns a Map from target to its pooled figures.
 * @param {{url: string, headers: object, body: string, handle: {child: {pid: number}, metricsUrl?: string}}[]} targets
 * @param {{connections: number, duration: number, slices: number}} opts
 */
async function maxRound(targets, { connections, duration, slices }) {
  for (const t of targets) if (t.handle.metricsUrl) await settle(t.handle.metricsUrl);
  const pooled = await pooledTurns(targets, slices, async (t) => {
    const turn = await cpuDuring(t.handle, () =>
      runLoad({
        url: t.url,
        headers: t.headers,
        body: t.body,
        connections,
        duration: duration / slices,
        keepLatencies: true,
      }),
    );
    if (t.handle.metricsUrl) await settle(t.handle.metricsUrl);
    return turn;
  });
  return new Map(targets.map((t) => [t, pooled.get(t).figures]));
}

/**
 * One line of the targets' CPU per request at 32 connections, with its split: `name total (user;
 * main thread)` in ms, `-` where there is no figure. `rows` are `{name, cpuMsPerRequest,
 * userMsPerRequest, mainThreadMsPerRequest}`.
 */
function cpuLine(rows) {
  const ms = (v) => (typeof v === 'number' ? v.toFixed(3) : '-');
  return `CPU ms per request (user; main thread): ${rows.map((r) => `${r.name} ${ms(r.cpuMsPerRequest)} (${ms(r.userMsPerRequest)}; ${ms(r.mainThreadMsPerRequest)})`).join(', ')}`;
}

module.exports = { median, msPerRequest, cpuDuring, settle, inTurns, pooledTurns, maxRound, cpuLine };
