/**
 * `createApp(deps)`: the whole HTTP surface as one Express pipeline. Every API request, the
 * embeddings route included, runs the same ordered middleware list: request context and access
 * log → (server span, with tracing on) → route label → (dashboard session cookie) → auth → rate limit → management-path check → (passthrough) → JSON body →
 * the route (validation, the budget step where a route is priced, the handler) → 404 → the one
 * error handler. No I/O happens here, so tests build as many instances as they like over shared
 * or separate stores.
 * @module
 */
import express, { type Express, type RequestHandler } from 'express';
import type { AppDeps } from './deps';
import { requestContext } from './http/request-context';
import { inflightBodies, jsonBodies } from './http/body-limits';
import { accessLog } from './http/access-log';
import { authenticate, requireManagementKeyOnManagementPaths } from './auth/authenticate';
import { perKeyRateLimit } from './http/rate-limit';
import { errorHandler, notFound } from './http/error-handler';
import { API_PREFIX, apiRouter } from './http/router';
import { healthRouter } from './routes/health';
import { registerKeyRoutes } from './routes/keys';
import { registerFileRoutes } from './routes/files';
import { registerEmbeddingRoutes } from './routes/embeddings';
import { registerChatRoutes } from './routes/chat';
import { registerResponsesRoutes } from './routes/responses';
import { registerMessagesRoutes } from './routes/messages';
import { registerWorkspaceRoutes } from './routes/workspaces';
import { registerGenerationRoutes } from './routes/generation';
import { registerModelRoutes } from './routes/models';
import { registerDatasetRoutes } from './routes/datasets';
import { PASSTHROUGH_ROUTES, passthroughRoutes } from './routes/passthrough';
import { registerAnalyticsRoutes } from './routes/analytics';
import { registerClassifierRoutes } from './routes/classifiers';
import { registerProviderRoutes } from './routes/providers';
import { dashboardRouter } from './dashboard/router';
import { traceRequests, tracedStep } from './observability/spans';

/** Options for {@link createApp}. */
export interface AppOptions {
  /**
   * Middleware every API route runs after authentication and the rate limit, before the body is
   * read (an IP allow-list, CORS, an audit log): one list for embeddings, management and files.
   */
  use?: RequestHandler[];
  /** Where the dashboard's built files are (default `dist/dashboard`); tests point it at their own. */
  dashboardDir?: string;
}

/** Build the API application. */
export function createApp(deps: AppDeps, options: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', deps.config.server.trustProxy);
  app.set('query parser', 'simple');

  app.use(requestContext(), accessLog(deps.logger, deps.metrics));
  app.use(healthRouter(deps));
  // After the health checks, so probes make no traces.
  if (deps.tracing) app.use(traceRequests(deps.tracing));
  if (deps.dashboard) app.use('/dashboard', dashboardRouter(deps, deps.dashboard, options.dashboardDir));

  const api = apiRouter();
  const passthrough = passthroughRoutes(deps);
  registerEmbeddingRoutes(api, deps);
  registerChatRoutes(api, deps);
  registerResponsesRoutes(api, deps);
  registerMessagesRoutes(api, deps);
  registerKeyRoutes(api, deps);
  registerFileRoutes(api, deps);
  registerWorkspaceRoutes(api, deps);
  registerGenerationRoutes(api, deps);
  registerModelRoutes(api, deps);
  registerDatasetRoutes(api, deps);
  registerAnalyticsRoutes(api, deps);
  registerClassifierRoutes(api, deps);
  registerProviderRoutes(api, deps);
  // Which routes exist, for tooling and tests (e.g. the hostile-input sweep checks it covers all).
  app.locals.apiRoutes = api.routes;

  app.use(
    API_PREFIX,
    // Before auth, so 401s and 429s are counted under the route template, not "unmatched".
    api.label,
    passthrough.label,
    // A dashboard session (cookie) stands in for a bearer key when the dashboard is on.
    ...(deps.dashboard ? [deps.dashboard.cookiesWithoutBearer] : []),
    tracedStep(deps.tracing, 'auth', authenticate(deps.keyCache, deps.metrics, deps.clock, deps.dashboard)),
    tracedStep(
      deps.tracing,
      'rate_limit',
      perKeyRateLimit(deps.rateLimitStore, deps.metrics, deps.logger, { name: 'api', ...deps.config.rateLimit }),
    ),
    requireManagementKeyOnManagementPaths(),
    ...(options.use ?? []),
    // Proxied routes (off unless configured) go before the JSON body: their bodies stream through unparsed.
    passthrough.proxy,
    inflightBodies(deps.config.server),
    jsonBodies(deps.config.server),
    api.router,
  );
  // The 404 names what was asked for and, when it can, what would serve it.
  const passthroughOff = deps.config.passthrough.baseUrl
    ? []
    : PASSTHROUGH_ROUTES.map(([method, path]) => ({ method, template: API_PREFIX + path }));
  app.use(notFound({ routes: api.routes, passthroughOff }));
  app.use(errorHandler(deps.logger));
  return app;
}

/** The formats a scrape may ask for, with the versions prom-client writes (a bare type would not match a versioned Accept). */
const SCRAPE_FORMATS = ['text/plain; version=0.0.4', 'application/openmetrics-text; version=1.0.0'];

/** The metrics application served on `METRICS_PORT` (kept off the public API port). */
export function createMetricsApp(deps: Pick<AppDeps, 'metrics' | 'logger'>): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', async function metrics(req, res) {
    // Prometheus asks for OpenMetrics first (exemplars need it); anything else gets the text format.
    const openMetrics = req.accepts(SCRAPE_FORMATS) === SCRAPE_FORMATS[1];
    const { contentType, body } = await deps.metrics.exposition(openMetrics);
    res.setHeader('Content-Type', contentType);
    res.send(body);
  });
  app.use(requestContext(), notFound());
  app.use(errorHandler(deps.logger));
  return app;
}
