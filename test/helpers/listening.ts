/**
 * A real gateway listening on 127.0.0.1 (random ports) over test stores, for clients that
 * speak HTTP themselves (the official SDKs, run in child processes).
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ConfigOverrides } from '../../src/config';
import { assembleDeps } from '../../src/deps';
import { startServer, type RunningServer } from '../../src/server';
import { createLogger } from '../../src/observability/logger';
import { TS_LOADER } from './services';
import { provisionOrg } from '../../src/orgs/provision';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';
import { testConfig } from './gateway';

/** A listening gateway, its base URL (ending in /api/v1) and a management key. */
export interface ListeningGateway {
  server: RunningServer;
  baseUrl: string;
  mgmtKey: string;
}

/** Start a gateway on random loopback ports. `server.shutdown()` closes it and the stores. */
export async function listenGateway(db: Database, kv: Kv, overrides: ConfigOverrides = {}): Promise<ListeningGateway> {
  const config = testConfig({
    ...overrides,
    server: { port: 0, metricsPort: 0, host: '127.0.0.1', ...overrides.server },
  });
  const deps = await assembleDeps(config, db, kv, {
    logger: createLogger('silent'),
    random: () => 0,
    workerPreload: TS_LOADER,
  });
  const org = await db.transaction((tx) => provisionOrg(tx, 'SDK Org'));
  const server = await startServer(deps);
  return { server, baseUrl: `http://127.0.0.1:${server.apiPort}/api/v1`, mgmtKey: org.secret };
}

/** Serve an in-process app (a harness's gateway) on a random loopback port; its base URL ends in /api/v1. */
export async function listenApp(app: http.RequestListener): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Run a `.mjs` client script from test/clients and parse the JSON it prints. */
export async function runClientScript<T>(script: string, args: string[]): Promise<T> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(__dirname, '..', 'clients', script), ...args],
    {
      timeout: 30000,
    },
  );
  return JSON.parse(stdout) as T;
}
