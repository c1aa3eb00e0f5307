/**
 * The gateway as a benchmark child: `dist/src/main.js` on free loopback ports, a fresh data dir
 * and a known bootstrap management key, pointed at the fake OpenAI upstream, plus a small client
 * for its management API. Shared by `bench/run.js` and `bench/faults.js`.
 */
'use strict';
const path = require('node:path');
const os = require('node:os');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { parse: parseYaml } = require('yaml');
const { randomBytes } = require('node:crypto');
const { fetch } = require('undici');
const { freePorts, startChild, stopChild } = require('./children');
const { prepareServices } = require('./services');

const ROOT = path.resolve(__dirname, '..', '..');
/** The benchmark's input text: one short sentence, so the response (1536 floats) is the bulk of each exchange. */
const BENCH_INPUT = 'The quick brown fox jumps over the lazy dog, then files a quarterly report.';
/**
 * BENCH_BATCH=N: the case ingestion pipelines send instead, N inputs of about 100 tokens each
 * (the upstream answers N 1,536-float vectors: about 1.2 MB for 64).
 */
const BATCH = Number(process.env.BENCH_BATCH || 0);
const BATCH_INPUT = Array.from(
  { length: BATCH },
  (_, i) => `Chunk ${i}: ${BENCH_INPUT.repeat(5)} ${'Retrieval pipelines embed many such passages. '.repeat(2)}`,
);
/** The request every benchmark sends to the gateway's POST /embeddings. */
const GATEWAY_BODY = JSON.stringify({
  model: 'openai/text-embedding-3-small',
  input: BATCH > 0 ? BATCH_INPUT : BENCH_INPUT,
  encoding_format: 'float',
});
/** Node's flags from a checkout's `npm start` (e.g. the young-generation size), so the benchmark runs what ships. */
const startFlags = (root) =>
  require(path.join(root, 'package.json'))
    .scripts.start.split(/\s+/)
    .filter((a) => a.startsWith('--'));

const isMapping = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
/** Lay `over` on `base` section by section, as the gateway layers its files (one level is all the bench sets). */
const laySections = (base, over) => {
  const out = { ...base };
  for (const [key, value] of Object.entries(over ?? {}))
    out[key] = isMapping(value) && isMapping(out[key]) ? { ...out[key], ...value } : value;
  return out;
};

/**
/**
 * Start the gateway; `env` is added to (and overrides) the defaults below, `config` (settings that
 * have no environment variable, e.g. `{ server: { shutdownTimeoutMs: 20000 } }`) is laid over the
 * bench's own (and over a file the caller's `env.SWITCHYARD_CONFIG` names, e.g. from AB_ENV_A) and
 * written to the file SWITCHYARD_CONFIG then names, `nodeArgs` go before the script
 * (e.g. `--cpu-prof`), `root` is the checkout whose build runs (another one's, for an A/B:
 * bench/ab.js). Resolves once `/healthz` answers. `stop()` sends SIGTERM and removes the data dir
 * and that file. The handle's `metricsUrl` is the gateway's Prometheus endpoint.
 * `script` is the entry point, `dist/src/main.js` unless given (bench/ladder-gateway.js for the ladder).
 * @param {{upstreamPort: number|string, env?: object, config?: object, nodeArgs?: string[], root?: string, script?: string}} opts
 */
async function spawnGateway({
  upstreamPort,
  env = {},
  config = {},
  nodeArgs = [],
  root = ROOT,
  script = path.join(root, 'dist/src/main.js'),
}) {
  const [port, metricsPort] = await freePorts(2);
  const bootstrapKey = `sk-bench-${randomBytes(16).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-bench-'));
  // JSON is YAML: the file needs no YAML writer. The rate limit is lifted so it never shapes a result.
  const configFile = `${dataDir}.yaml`;
  const callerFile = env.SWITCHYARD_CONFIG ? parseYaml(readFileSync(env.SWITCHYARD_CONFIG, 'utf8')) : {};
  writeFileSync(
    configFile,
    JSON.stringify([callerFile, config].reduce(laySections, { rateLimit: { limit: 10_000_000 } })),
  );
  const removeDataDir = () => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(configFile, { force: true });
  };
  const handle = await startChild(
    'gateway',
    [...startFlags(root), ...nodeArgs, script],
    {
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      SWITCHYARD_DATA_DIR: dataDir,
      SWITCHYARD_BOOTSTRAP_KEY: bootstrapKey,
      // The chat and agent turns, and the Responses door's, which asks the upstream's chat completions.
      OPENAI_BASE_URL: `http://127.0.0.1:${upstreamPort}/v1`,
      OPENAI_API_KEY: 'sk-bench-upstream',
      // The Messages door's agent turns go to the same fake, which answers Anthropic's format too.
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${upstreamPort}/v1`,
      ANTHROPIC_API_KEY: 'sk-bench-upstream',
      ...env,
      SWITCHYARD_CONFIG: configFile,
    },
    { readyUrl: `http://127.0.0.1:${port}/healthz` },
  ).catch((err) => {
    removeDataDir();
    throw err;
  });
  const base = `http://127.0.0.1:${port}/api/v1`;
  handle.metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  /** Call the API (default: with the management key); throws on a non-2xx answer. */
  const api = async (method, route, body, key = bootstrapKey) => {
    const res = await fetch(base + route, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json().catch(() => null);
    if (!res.ok) throw new Error(`${method} ${route} → ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  /** SIGTERM, and SIGKILL if it has not exited after `killAfterMs`. */
  const stop = async (killAfterMs = 5000) => {
    await stopChild(handle, killAfterMs);
    removeDataDir();
  };
  return { handle, base, api, stop };
}

/**
 * The benchmark's gateway: `mode` `services` (a throw-away Postgres database and Redis prefix,
 * see services.js) or `embedded`, a monthly workspace budget and an inference key with its own
 * limit, so every request passes both spend checks. Resolves to the child's handle with `url`
 * (POST on `route`, `/embeddings` unless given), `headers` (the key) and `cleanup()` (stop, drop
 * the services' data).
 * @param {number|string} upstreamPort
 * @param {'services'|'embedded'} mode
 * @param {{nodeArgs?: string[], env?: object, config?: object, root?: string, script?: string, budgets?: boolean, route?: string}} [opts] - `nodeArgs`
 *   before the script (e.g. `--cpu-prof`), `env` added to the gateway's environment, `config`, `root` and
 *   `script` as in spawnGateway, `budgets: false` to set neither the workspace budget nor the key's limit,
 *   `route` the API route `url` points at (e.g. `/chat/completions`)
 */
async function startBenchGateway(
  upstreamPort,
  mode,
  { nodeArgs = [], env: extraEnv = {}, config = {}, root = ROOT, script, budgets = true, route = '/embeddings' } = {},
) {
  const services = mode === 'services' ? await prepareServices() : null;
  const env = {
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'info',
    ...(services ? services.env : { DATABASE_URL: '', REDIS_URL: '' }),
    ...extraEnv,
  };
  const gateway = await spawnGateway({ upstreamPort, env, config, nodeArgs, root, script }).catch(async (err) => {
    if (services) await services.cleanup();
    throw err;
  });
  const { handle, base, api } = gateway;
  handle.cleanup = async () => {
    await gateway.stop();
    if (services) await services.cleanup();
  };
  try {
    const workspaces = await api('GET', '/workspaces');
    if (budgets) await api('PUT', `/workspaces/${workspaces.data[0].id}/budgets/monthly`, { limit_usd: 1_000_000 });
    const created = await api(
      'POST',
      '/keys',
      budgets ? { name: 'bench', limit: 1_000_000, limit_reset: 'monthly' } : { name: 'bench' },
    );
    handle.url = `${base}${route}`;
    handle.headers = { authorization: `Bearer ${created.key}` };
    return handle;
  } catch (err) {
    await handle.cleanup();
    throw err;
  }
}

module.exports = { BATCH, BENCH_INPUT, GATEWAY_BODY, spawnGateway, startBenchGateway, startFlags };
