/**
 * Listening and graceful shutdown, separate from `main.ts` so tests can start and stop a real
 * gateway in-process. On SIGTERM: readiness turns 503, the listeners stop accepting, in-flight
 * requests finish (up to the drain timeout), idle keep-alive sockets close, then the pools close.
 * @module
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, createMetricsApp } from './app';
import { closeDependencies, type AppDeps } from './deps';

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

/** Start the API and metrics listeners over `deps`. */
export async function startServer(deps: AppDeps): Promise<RunningServer> {
  const { server: cfg } = deps.config;
  const api = http.createServer(createApp(deps));
  // Keep-alive longer than typical load-balancer idle timeouts avoids spurious 502s at the LB.
  api.keepAliveTimeout = 65_000;
  api.headersTimeout = 66_000;
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
