/**
 * Listening and graceful shutdown, separate from `main.ts` so tests can start and stop a real
 * gateway in-process. On SIGTERM: readiness turns 503, the listeners stop accepting, in-flight
 * requests finish (up to the drain timeout), idle keep-alive sockets close, then the pools close.
 * @module
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createApp, createMetricsApp } from './app';
import { closeDependencies, type AppDeps } from './deps';
import {
  answerClientError,
  answerUnmetExpectation,
  declaredLimit,
  refuseOversized,
  refuseUnreadable,
} from './http/early-refusals';

/** A running gateway. */
export interface RunningServer {
  api: http.Server;
  metrics: http.Server;
  apiPort: number;
  metricsPort: number;
  /** Drain and close everything; resolves when done. Idempotent. */
  shutdown(reason: string): Promise<void>;
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: http.Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
    force.unref();
    // Keep-alive sockets become idle as their in-flight requests finish: close them as they do.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearTimeout(force);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * The API's HTTP server: a body declared over its limit is refused (413) before the application
 * or the body is touched (also on `Expect: 100-continue`, without the continue), so are requests
 * without `Host`, with a transfer coding other than chunked, or with an unmet `Expect`, and errors
 * of the HTTP parser get the envelope (see http/early-refusals.ts).
 */
function apiServer(deps: AppDeps): http.Server {
  const app = createApp(deps);
  const limitOf = declaredLimit(deps.config);
  const refused = (status: number) => deps.metrics.httpRefusals.inc({ status: String(status) });
  // The response of the request each socket is reading: a parser error in its body is answered there.
  const inFlight = new WeakMap<Duplex, http.ServerResponse>();
  const serve = (req: http.IncomingMessage, res: http.ServerResponse, continued: boolean) => {
    inFlight.set(req.socket, res);
    res.once('close', () => inFlight.get(req.socket) === res && inFlight.delete(req.socket));
    if (refuseUnreadable(req, res)) return refused(res.statusCode);
    if (refuseOversized(req, res, limitOf(req))) return refused(413);
    if (continued) res.writeContinue();
    app(req, res);
  };
  // Node checks the head and request timers every connectionsCheckingInterval (30 s by default):
  // check often enough that a 408 comes close to the configured timeout. Its Host check is off:
  // refuseUnreadable answers that with the envelope.
  const checkEvery = Math.min(30_000, Math.max(250, Math.floor(deps.config.server.headersTimeoutMs / 4)));
  const server = http.createServer({ connectionsCheckingInterval: checkEvery, requireHostHeader: false }, (req, res) =>
    serve(req, res, false),
  );
  server.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => serve(req, res, true));
  server.on('checkExpectation', answerUnmetExpectation(refused));
  server.on('clientError', answerClientError(inFlight, refused));
  return server;
}

/** Start the API and metrics listeners over `deps`. */
export async function startServer(deps: AppDeps): Promise<RunningServer> {
  const { server: cfg } = deps.config;
  const api = apiServer(deps);
  // Keep-alive longer than typical load-balancer idle timeouts avoids spurious 502s at the LB.
  // (Node times a request's head from its first byte, so an idle keep-alive socket is not cut by headersTimeout.)
  api.keepAliveTimeout = 65_000;
  api.headersTimeout = cfg.headersTimeoutMs;
  api.requestTimeout = cfg.requestTimeoutMs;
  const metrics = http.createServer(createMetricsApp(deps));
  const apiPort = await listen(api, cfg.port, cfg.host);
  const metricsPort = await listen(metrics, cfg.metricsPort, cfg.host);
  let closing: Promise<void> | undefined;

  return {
    api,
    metrics,
    apiPort,
    metricsPort,
    shutdown(reason) {
      closing ??= (async () => {
        deps.state.draining = true;
        deps.logger.info('shutting down', { reason, drain_timeout_ms: cfg.shutdownTimeoutMs });
        await Promise.all([closeServer(api, cfg.shutdownTimeoutMs), closeServer(metrics, 1000)]);
        await closeDependencies(deps);
        deps.logger.info('shutdown complete');
      })();
      return closing;
    },
  };
}
