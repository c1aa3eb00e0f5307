/**
 * The gateway for `npm run bench:ladder`, with features switched off for the benchmark only
 * (BENCH_OFF: a comma-separated list of the names in OFF_SWITCHES, empty = every feature on). It
 * builds the gateway from the checkout's build as `dist/src/main.js` does (config, dependencies,
 * bootstrap, listen); a switched-off feature's part is replaced before or while the dependencies
 * are built, never in the built ones (they are frozen).
 * None of these switches is a setting an operator could use: turning usage recording off loses
 * spend, turning the rate limit off opens the gateway to one key's flood. So they live here, not
 * in the configuration. Where a setting does switch a feature off (log level, sampling rate,
 * budgets absent), the ladder uses it instead (see ladder.js).
 */
'use strict';
const path = require('node:path');
const { setTimeout } = require('node:timers');

const DIST = path.resolve(__dirname, '..', 'dist', 'src');
const dist = (module) => require(path.join(DIST, module));

/** A prom-client metric that records nothing: every method returns it again (labels(), startTimer()…). */
function inertMetric() {
  const inert = new Proxy(function inertCall() {}, {
    get: (_target, prop) => (prop === 'then' ? undefined : () => inert),
    apply: () => inert,
  });
  return inert;
}

/** Every prom-client metric of `metrics` replaced by an inert one (the scrape still answers, from the registry). */
function inertMetrics(metrics) {
  const { Counter, Gauge, Histogram, Summary } = require('prom-client');
  for (const [name, value] of Object.entries(metrics)) {
    if (value instanceof Counter || value instanceof Gauge || value instanceof Histogram || value instanceof Summary)
      metrics[name] = inertMetric();
  }
  return metrics;
}

const passThrough = () => (_req, _res, next) => next();

/**
 * What each switch replaces. `module` switches act before the dependencies and the app are built
 * (the middleware factories and service classes these call); `wrap` switches are parts of
 * `openDependencies`' build-time `wrap` option (DepsWrappers in src/deps.ts: each receives the part
 * built and returns the one the gateway runs on). Features switched off by configuration are not
 * here: see ladder.js.
 */
const OFF_SWITCHES = {
  'rate-limit': { module: () => (dist('http/rate-limit').perKeyRateLimit = passThrough) },
  validation: {
    module: () =>
      (dist('http/validate').validate = () => (req, _res, next) => {
        req.valid = { body: req.body, query: req.query, params: req.params };
        next();
      }),
  },
  // Records nothing; shutdown still flushes and closes the real recorder.
  usage: {
    wrap: {
      recorder: (real) => ({
        record: async () => undefined,
        pending: async () => [],
        flush: () => real.flush(),
        close: () => real.close(),
      }),
    },
  },
  classifiers: {
    module: () => (dist('classifiers/service').ClassifierService.prototype.observeAfter = () => undefined),
  },
  'endpoint-stats': { module: () => (dist('routing/endpoint-stats').EndpointStats.prototype.record = () => undefined) },
  // The embeddings service is handed no cache, so its per-workspace lookup is skipped (the cache is still built and closed).
  cache: {
    module: () => {
      const service = dist('embeddings/service');
      const Built = service.EmbeddingsService;
      service.EmbeddingsService = class extends Built {
        constructor(deps, ...rest) {
          super({ ...deps, embeddingsCache: undefined }, ...rest);
        }
      };
    },
  },
  metrics: { metrics: true },
};

async function main() {
  const off = (process.env.BENCH_OFF || '').split(',').filter(Boolean);
  const unknown = off.filter((name) => !OFF_SWITCHES[name]);
  if (unknown.length > 0)
    throw new Error(`BENCH_OFF: unknown ${unknown.join(', ')} (known: ${Object.keys(OFF_SWITCHES).join(', ')})`);
  const switches = off.map((name) => OFF_SWITCHES[name]);
  for (const s of switches) s.module?.();
  const { loadConfig } = dist('config');
  const { openDependencies } = dist('deps');
  const { Metrics } = dist('observability/metrics');
  const { bootstrapIfEmpty } = dist('orgs/provision');
  const { startServer } = dist('server');
  const config = loadConfig();
  const metrics = switches.some((s) => s.metrics) ? inertMetrics(new Metrics(true)) : undefined;
  const wrap = Object.assign({}, ...switches.map((s) => s.wrap ?? {}));
  const deps = await openDependencies(config, { metrics, wrap });
  await bootstrapIfEmpty(deps.db, config.auth.bootstrapKey);
  const server = await startServer(deps);
  deps.rankings.scheduler.start();
  process.once('SIGTERM', () => {
    server.shutdown('SIGTERM').then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100).unref();
});
