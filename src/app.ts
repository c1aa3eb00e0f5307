/**
 * `createApp(deps)`: the whole HTTP surface, wired in one direction (context → health →
 * route label → auth → rate limit → management-path check → routes → 404 → the error
 * handler). `POST /api/v1/embeddings` runs the same pieces outside Express's router (see
 * `http/hot-route.ts`). No I/O happens here, so tests build as many instances as they like over
 * shared or separate stores.
 * @module
 */
import express, { type Express } from 'express';
import type { AppDeps } from './deps';
import { requestContext } from './http/request-context';
import { compose } from './http/compose';
import { accessLog } from './http/access-log';
import { authenticate, requireManagementKeyOnManagementPaths } from './auth/authenticate';
import { perKeyRateLimit } from './http/rate-limit';
import { errorHandler, notFound } from './http/error-handler';
import { API_PREFIX, apiRouter, labelAs } from './http/router';
import { serveHotRoute } from './http/hot-route';
import { hotJsonBody } from './http/json-body';
import { healthRouter } from './routes/health';
import { registerKeyRoutes } from './routes/keys';
import { registerFileRoutes } from './routes/files';
import { createEmbeddingsHandlers, registerEmbeddingRoutes } from './routes/embeddings';
import { registerWorkspaceRoutes } from './routes/workspaces';
import { registerGenerationRoutes } from './routes/generation';
import { passthroughRoutes } from './routes/passthrough';
import { registerAnalyticsRoutes } from './routes/analytics';
import { registerClassifierRoutes } from './routes/classifiers';

/** Build the API application. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', deps.config.server.trustProxy);
  app.set('query parser', 'simple');

  const context = compose(requestContext(), accessLog(deps.logger, deps.metrics));
  const auth = authenticate(deps.keyCache, deps.metrics, deps.clock);
  const rateLimit = perKeyRateLimit(deps.rateLimitStore, deps.metrics, deps.logger, { name: 'api', ...deps.config.rateLimit });
  const jsonBody = express.json({ limit: deps.config.server.bodyLimitBytes, strict: false });
  const errors = errorHandler(deps.logger);
  const createEmbeddings = createEmbeddingsHandlers(deps);

  app.use(context);
  app.use(healthRouter(deps));

  const api = apiRouter();
  const passthrough = passthroughRoutes(deps);
  // The hot path first: the router tests layers in order, so embeddings skips every other route's match.
  registerEmbeddingRoutes(api, deps, createEmbeddings);
  registerKeyRoutes(api, deps);
  registerFileRoutes(api, deps);
  registerWorkspaceRoutes(api, deps);
  registerGenerationRoutes(api, deps);
  registerAnalyticsRoutes(api, deps);
  registerClassifierRoutes(api, deps);
  // Which routes exist, for tooling and tests (e.g. the hostile-input sweep checks it covers all).
  app.locals.apiRoutes = api.routes;

  // One router layer for the whole chain (see compose): every API request runs all of it in order.
  app.use(
    API_PREFIX,
    compose(
      // Before auth, so 401s and 429s are counted under the route template, not "unmatched".
      api.label,
      passthrough.label,
      auth,
      rateLimit,
      requireManagementKeyOnManagementPaths(),
      // Proxied routes (off unless configured) go before express.json: their bodies stream through unparsed.
      passthrough.proxy,
      jsonBody,
      api.router,
    ),
  );
  app.use(notFound());
  app.use(errors);

  // The same chain and handlers for the hot path, minus the steps that cannot apply to it
  // (health, management paths, passthrough), without Express's router (see hot-route.ts), and
  // plain JSON bodies read without body-parser (see json-body.ts).
  const embeddingsPath = `${API_PREFIX}/embeddings`;
  serveHotRoute(app, {
    method: 'POST',
    path: embeddingsPath,
    chain: compose(context, labelAs(embeddingsPath), auth, rateLimit, hotJsonBody(deps.config.server.bodyLimitBytes, jsonBody), ...createEmbeddings),
    onError: errors,
  });
  return app;
}

/** The metrics application served on `METRICS_PORT` (kept off the public API port). */
export function createMetricsApp(deps: Pick<AppDeps, 'metrics' | 'logger'>): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', async function metrics(_req, res) {
    res.setHeader('Content-Type', deps.metrics.registry.contentType);
    res.send(await deps.metrics.registry.metrics());
  });
  app.use(requestContext(), notFound());
  app.use(errorHandler(deps.logger));
  return app;
}
