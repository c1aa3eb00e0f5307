/**
 * `npm run bench:chat` / `npm run bench:chat-stream` (BENCH_CASE=chat or chat-stream), and
 * `npm run bench:agent` / `npm run bench:agent-stream` (BENCH_CASE=agent or agent-stream): what the
 * gateway costs on `POST /chat/completions`, measured as `npm run bench` measures embeddings, in one
 * interleaved run against the same references:
 *
 *   direct   the fake upstream alone (bench/chat-upstream.js: OpenAI-compatible, bytes built once)
 *   proxy    the bare node:http proxy (bench/proxy.js) in front of it
 *   floor    the featureless Express floor for chat (bench/chat-floor.js: express.json, one undici
 *            POST; a whole answer read whole and sent back, a stream piped through as it arrives)
 *   gateway  Switchyard with every feature on (bench/lib/gateway.js, as in `npm run bench`),
 *            serving a model of the shipped chat catalog with OPENAI_BASE_URL at the fake upstream
 *
 * Cases (bench/lib/cases.js): `chat`, a short request for `openai/gpt-4o-mini` answered whole
 * with about 500 completion tokens; `chat-stream`, the same as an SSE stream of 200 events (usage
 * in the last one) then `[DONE]`; `agent` and `agent-stream`, a coding agent's turn of
 * BENCH_AGENT_KB (50 by default; 150, 1024) for `openai/gpt-4.1-mini` (bench/lib/agent-request.js:
 * 12 tools, a 12 KB system prompt, tool calls and results), with the same answers;
 * `agent-messages`, `agent-responses` and their `-stream` cases, the same turn through the Messages
 * and Responses doors (`POST /messages`, `POST /responses`), answered in those formats.
 *
 * After a warm-up (BENCH_WARMUP s per target), BENCH_ROUNDS rounds (3) of: 32 connections as fast
 * as possible (autocannon) for BENCH_DURATION s (10) per target, then an evenly paced rate, half
 * the floor's capacity in that round (BENCH_RATE fixes it); each scenario in BENCH_SLICES turns
 * (5) per target, the order reversed every other turn (bench/lib/rounds.js). The paced client
 * (bench/lib/paced.js) times each answer's first byte (for streams, its first `data:` event) and
 * its end. Reported: requests/s as a share of the floor's (target ≥ 0.80 for agent turns, 0.55 for chat) and of the proxy's,
 * CPU per request (with its user and main-thread parts), added time to first byte (p50/p99 over
 * calling the upstream directly) for the gateway beside the floor's and the proxy's, and peak RSS. Figures are medians over rounds; comparisons medians of the per-round
 * comparisons. Writes bench/results-<case>.json (results-agent-<kb>kb.json for a turn of another
 * size than 50 KB). Loopback only, bounded, stops by itself.
 *
 * BENCH_MODE: `embedded` (default) or `services` (Postgres + Redis), as in bench/run.js.
 */
'use strict';
const { Buffer } = require('node:buffer');
const { fetch } = require('undici');
const { writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { readyPort, startChild, peakRssMb, stopChild } = require('./lib/children');
const { startBenchGateway, startFlags } = require('./lib/gateway');
const { runLoad } = require('./lib/load');
const { runPaced, stopPaced } = require('./lib/paced');
const { benchCase, caseLabel } = require('./lib/cases');
const { cpuLine, maxRound, median, pooledTurns } = require('./lib/rounds');
const { percentile } = require('./lib/percentile');

/** The case (bench/lib/cases.js): its name, bodies, route and the gateway's settings for it. */
const BENCH = benchCase(process.env.BENCH_CASE || 'chat', [
  'chat',
  'chat-stream',
  'agent',
  'agent-stream',
  'agent-messages',
  'agent-messages-stream',
  'agent-responses',
  'agent-responses-stream',
]);
/** The share of the floor's requests/s each case must reach (#60: agent turns 0.80, small chat 0.55). */
const TARGET = BENCH.name.startsWith('agent') ? 0.8 : 0.55;
const CASE = BENCH.name;
const STREAM = BENCH.stream;
const MODE = process.env.BENCH_MODE || 'embedded';
const DURATION = Number(process.env.BENCH_DURATION || 10);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS || 3));
const WARMUP = Number(process.env.BENCH_WARMUP || 10);
const CONNECTIONS = 32;
const FIXED_RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : null;
const SLICES = Math.max(1, Number(process.env.BENCH_SLICES || 5));
/** A `data:` line's JSON (an empty object for a missing line). */
const dataOf = (line) => (line === undefined ? {} : JSON.parse(line.slice(5)));

/**
 * What the check expects of each wire format's answers (bench/lib/cases.js): a whole answer of 500
 * completion tokens with its text, and a whole stream: its `data:` events, the same from every
 * target, and its end, with the usage.
 * - chat: `[DONE]` included, 200 from the upstream or the gateway's 199 passed through, its usage
 *   chunk and `[DONE]`;
 * - messages: message_start, the block's start, 197 text deltas, its stop, message_delta,
 *   message_stop;
 * - responses: response.created, response.in_progress, the message item's and its text part's
 *   `added`, 197 text deltas, the text's, the part's and the item's `done`, response.completed
 *   (the gateway's door writes these from the chat stream it reads, the fake upstream as OpenAI).
 */
const FORMATS = {
  chat: {
    events: 201,
    whole: (json) => json.usage?.completion_tokens === 500 && json.choices?.[0]?.message?.content,
    // The usage chunk before `[DONE]`.
    finished: (events) => events.at(-1) === 'data: [DONE]' && dataOf(events.at(-2)).usage?.completion_tokens,
    end: 'usage and [DONE]',
  },
  messages: {
    events: 202,
    whole: (json) => json.usage?.output_tokens === 500 && json.content?.[0]?.text,
    finished: (events) => events.at(-1)?.includes('"message_stop"') && dataOf(events.at(-2)).usage?.output_tokens,
    end: 'message_delta with usage and message_stop',
  },
  responses: {
    events: 205,
    whole: (json) => json.usage?.output_tokens === 500 && json.output?.[0]?.content?.[0]?.text,
    finished: (events) => {
      const last = dataOf(events.at(-1));
      return last.type === 'response.completed' && last.response?.usage?.output_tokens;
    },
    end: 'response.completed with usage',
  },
};
const FORMAT = FORMATS[BENCH.format];

/** The client's body to the gateway and the floor, and the same request as the gateway sends it upstream (for direct and proxy). */
const GATEWAY_BODY = BENCH.body;
const UPSTREAM_BODY = BENCH.upstreamBody;

/** One request through the target, checked, so a broken setup fails loudly instead of measuring errors. */
async function check(t) {
  const res = await fetch(t.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...t.headers },
    body: t.body,
  });
  const text = await res.text();
  const fail = (why) => new Error(`${t.name}: ${why}: ${res.status} ${text.slice(0, 300)}`);
  if (res.status !== 200) throw fail('expected 200');
  if (!STREAM) {
    if (!FORMAT.whole(JSON.parse(text))) throw fail('expected a whole answer of 500 completion tokens');
    return;
  }
  const events = text.split('\n').filter((l) => l.startsWith('data:'));
  if (events.length !== FORMAT.events || !FORMAT.finished(events))
    throw fail(`expected ${FORMAT.events} data events ending with ${FORMAT.end}, got ${events.length}`);
}

/** One paced round: DURATION s per target at `rate`, in SLICES turns, the order reversed every other turn; latencies pooled. */
async function pacedRound(targets, rate) {
  const pooled = await pooledTurns(targets, SLICES, async (t) => ({
    result: await runPaced({
      url: t.url,
      headers: t.headers,
      body: t.body,
      rate,
      duration: DURATION / SLICES,
      firstByte: STREAM ? 'event' : 'byte',
      keepLatencies: true,
    }),
    seconds: null,
  }));
  for (const t of targets) {
    const { figures, turns } = pooled.get(t);
    const ttfb = turns.flatMap((r) => r.ttfb).sort((a, b) => a - b);
    const sum = (k) => turns.reduce((n, r) => n + r[k], 0);
    const events = turns.filter((r) => r.eventsMin !== null);
    t.rounds.paced.push({
      rate,
      ...figures,
      ttfbP50: percentile(ttfb, 50),
      ttfbP99: percentile(ttfb, 99),
      noEvent: sum('noEvent'),
      eventsMin: events.length === 0 ? null : Math.min(...events.map((r) => r.eventsMin)),
      eventsMax: Math.max(0, ...turns.map((r) => r.eventsMax ?? 0)),
      clientStalls: sum('clientStalls'),
    });
  }
}

/** Warm-up, then ROUNDS rounds of the 32-connection scenario and a paced round, each in SLICES turns (lib/rounds.js). */
async function measureAll(targets) {
  for (const t of targets) {
    await check(t);
    await runLoad({ url: t.url, headers: t.headers, body: t.body, connections: CONNECTIONS, duration: WARMUP });
    t.rounds = { max: [], paced: [] };
  }
  for (let round = 0; round < ROUNDS; round++) {
    const max = await maxRound(targets, { connections: CONNECTIONS, duration: DURATION, slices: SLICES });
    for (const t of targets) t.rounds.max.push(max.get(t));
    const floor = targets.find((t) => t.name === 'floor');
    await pacedRound(targets, FIXED_RATE ?? Math.max(1, Math.round(floor.rounds.max[round].rps / 2)));
  }
  for (const t of targets) t.peakRssMb = peakRssMb(t.handle.child.pid);
}

const fmt = (v, digits = 2) =>
  v === null || v === undefined ? '-' : typeof v === 'number' ? v.toFixed(digits) : String(v);

function report(targets) {
  const [direct, proxy, floor, gateway] = ['direct', 'proxy', 'floor', 'gateway'].map((n) =>
    targets.find((t) => t.name === n),
  );
  const rounds = gateway.rounds.max.map((_, i) => i);
  const share = (t, base) => rounds.map((i) => t.rounds.max[i].rps / base.rounds.max[i].rps);
  const added = (t, key) => median(rounds.map((i) => t.rounds.paced[i][key] - direct.rounds.paced[i][key]));
  const each = (values) => values.map((v) => fmt(v, 3)).join(', ');
  const ofFloor = share(gateway, floor);
  const summary = {
    case: CASE,
    requestBytes: Buffer.byteLength(GATEWAY_BODY),
    ...(BENCH.kb !== undefined ? { agentKb: BENCH.kb } : {}),
    mode: MODE,
    throughputShareOfFloor: {
      value: median(ofFloor),
      rounds: ofFloor,
      target: `>= ${TARGET}`,
      pass: median(ofFloor) >= TARGET,
    },
    throughputShareOfProxy: { value: median(share(gateway, proxy)), rounds: share(gateway, proxy) },
    floorShareOfProxy: median(share(floor, proxy)),
    targets: Object.fromEntries(
      targets.map((t) => [
        t.name,
        {
          rps: median(t.rounds.max.map((r) => r.rps)),
          cpuMsPerRequest: median(t.rounds.max.map((r) => r.cpuMsPerRequest)),
          userMsPerRequest: median(t.rounds.max.map((r) => r.userMsPerRequest)),
          mainThreadMsPerRequest: median(t.rounds.max.map((r) => r.mainThreadMsPerRequest)),
          pacedTtfbP50: median(t.rounds.paced.map((r) => r.ttfbP50)),
          pacedTtfbP99: median(t.rounds.paced.map((r) => r.ttfbP99)),
          pacedP50: median(t.rounds.paced.map((r) => r.p50)),
          pacedP99: median(t.rounds.paced.map((r) => r.p99)),
          addedTtfbP50: t === direct ? null : added(t, 'ttfbP50'),
          addedTtfbP99: t === direct ? null : added(t, 'ttfbP99'),
          peakRssMb: t.peakRssMb,
          errors: t.rounds.max.concat(t.rounds.paced).reduce((n, r) => n + r.errors + r.non2xx + (r.noEvent ?? 0), 0),
          eventsPerAnswer: STREAM
            ? [Math.min(...t.rounds.paced.map((r) => r.eventsMin)), Math.max(...t.rounds.paced.map((r) => r.eventsMax))]
            : undefined,
        },
      ]),
    ),
  };
  const rates = gateway.rounds.paced.map((r) => r.rate).join(', ');
  console.log(
    `\ncase ${CASE} (a ${(Buffer.byteLength(GATEWAY_BODY) / 1024).toFixed(1)} KB request), mode ${MODE}: ${ROUNDS} rounds of ${DURATION} s at ${CONNECTIONS} connections, paced at ${rates} req/s by round`,
  );
  console.log(
    `time to first byte = ${STREAM ? 'the first SSE data: event' : 'the status line'}; figures are medians over rounds, comparisons medians of per-round comparisons`,
  );
  console.log(
    'target  | 32 conn req/s | CPU ms/req | paced TTFB p50 / p99 ms | added TTFB p50 / p99 ms | paced whole p50 / p99 ms | errors | peak RSS MB',
  );
  for (const t of targets) {
    const s = summary.targets[t.name];
    console.log(
      `${t.name.padEnd(7)} | ${fmt(s.rps, 1).padStart(13)} | ${fmt(s.cpuMsPerRequest, 3).padStart(10)} | ${`${fmt(s.pacedTtfbP50, 3)} / ${fmt(s.pacedTtfbP99, 3)}`.padStart(23)} | ` +
        `${`${fmt(s.addedTtfbP50, 3)} / ${fmt(s.addedTtfbP99, 3)}`.padStart(23)} | ${`${fmt(s.pacedP50, 3)} / ${fmt(s.pacedP99, 3)}`.padStart(24)} | ${String(s.errors).padStart(6)} | ${fmt(s.peakRssMb, 1)}`,
    );
  }
  console.log(
    `gateway ÷ floor = ${fmt(summary.throughputShareOfFloor.value, 3)} (target >= ${TARGET.toFixed(2)}) ${summary.throughputShareOfFloor.pass ? 'PASS' : 'MISS'}  [rounds: ${each(ofFloor)}]`,
  );
  console.log(
    `gateway ÷ proxy = ${fmt(summary.throughputShareOfProxy.value, 3)}  [rounds: ${each(share(gateway, proxy))}]; floor ÷ proxy = ${fmt(summary.floorShareOfProxy, 3)}`,
  );
  console.log(cpuLine(targets.map((t) => ({ name: t.name, ...summary.targets[t.name] }))));
  if (STREAM)
    console.log(
      `data: events per answer (min-max): ${targets.map((t) => `${t.name} ${summary.targets[t.name].eventsPerAnswer.join('-')}`).join(', ')}`,
    );
  console.log(
    `paced client stalls per round: ${targets.map((t) => `${t.name} ${t.rounds.paced.map((r) => r.clientStalls).join('/')}`).join(', ')}`,
  );
  const load = os.loadavg()[0];
  console.log(`machine load average (1 min) at the end: ${load.toFixed(2)} on ${os.cpus().length} CPUs`);
  return { ...summary, loadAverage1m: load, rounds: Object.fromEntries(targets.map((t) => [t.name, t.rounds])) };
}

/** Start one of the benchmark's servers (`bench/<script>`, which prints `READY <port>`). */
async function startServer(script, env, nodeArgs = []) {
  const handle = await startChild(path.basename(script, '.js'), [...nodeArgs, path.join(__dirname, script)], env, {
    readyLine: readyPort,
  });
  return { handle, port: Number(handle.value) };
}

async function main() {
  const upstream = await startServer('chat-upstream.js', {});
  const forward = { UPSTREAM: `http://127.0.0.1:${upstream.port}` };
  const proxy = await startServer('proxy.js', forward);
  const floor = await startServer('chat-floor.js', forward, startFlags(path.resolve(__dirname, '..')));
  let gateway = null;
  try {
    const nodeArgs = process.env.BENCH_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${path.join(__dirname, 'profiles')}`]
      : [];
    gateway = await startBenchGateway(upstream.port, MODE, { nodeArgs, route: BENCH.route, config: BENCH.config });
    const targets = [
      {
        name: 'direct',
        handle: upstream.handle,
        url: `http://127.0.0.1:${upstream.port}${BENCH.upstreamPath}`,
        headers: {},
        body: UPSTREAM_BODY,
      },
      {
        name: 'proxy',
        handle: proxy.handle,
        url: `http://127.0.0.1:${proxy.port}${BENCH.upstreamPath}`,
        headers: {},
        body: UPSTREAM_BODY,
      },
      {
        name: 'floor',
        handle: floor.handle,
        url: `http://127.0.0.1:${floor.port}/api/v1${BENCH.route}`,
        headers: {},
        body: GATEWAY_BODY,
      },
      { name: 'gateway', handle: gateway, url: gateway.url, headers: gateway.headers, body: GATEWAY_BODY },
    ];
    await measureAll(targets);
    const result = report(targets);
    const out = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      durationSeconds: DURATION,
      connections: CONNECTIONS,
      fixedRate: FIXED_RATE,
      ...result,
    };
    writeFileSync(path.join(__dirname, `results-${caseLabel(BENCH)}.json`), `${JSON.stringify(out, null, 2)}\n`);
    console.log(`\nwrote bench/results-${caseLabel(BENCH)}.json`);
  } finally {
    await stopPaced();
    if (gateway) await gateway.cleanup();
    await stopChild(floor.handle);
    await stopChild(proxy.handle);
    await stopChild(upstream.handle);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
