/**
 * Graceful shutdown of a real listening gateway: a request in flight when shutdown starts
 * still completes, readiness flips to draining, new connections are refused afterwards, and
 * the stores are closed.
 */
import http from 'node:http';
import { openTestPglite, uniqueId } from '../helpers/services';
import { testConfig } from '../helpers/gateway';
import { assembleDeps } from '../../src/deps';
import { startServer } from '../../src/server';
import { createLogger } from '../../src/observability/logger';
import { provisionOrg } from '../../src/orgs/provision';
import { MemoryKv } from '../../src/kv/memory';

function rawRequest(port: number, method: string, path: string, headers: Record<string, string>) {
  const req = http.request({ host: '127.0.0.1', port, method, path, headers });
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
  return { req, response };
}

test('SIGTERM-style shutdown drains the in-flight request, then refuses new connections', async () => {
  const db = await openTestPglite();
  const config = testConfig({ server: { port: 0, metricsPort: 0, host: '127.0.0.1', shutdownTimeoutMs: 5000 } });
  const deps = await assembleDeps(config, db, new MemoryKv(`t:${uniqueId()}:`), { logger: createLogger('silent') });
  const org = await db.transaction((tx) => provisionOrg(tx, 'Drain Org'));
  const server = await startServer(deps);

  // A request whose body is still arriving when shutdown begins.
  const body = JSON.stringify({ name: 'created during drain' });
  // Shutdown starts only once the server has the request (a connection still in the accept
  // backlog when the listener closes would be reset, which is not what this test is about).
  const received = new Promise((resolve) => server.api.once('request', resolve));
  const inflight = rawRequest(server.apiPort, 'POST', '/api/v1/keys', {
    Authorization: `Bearer ${org.secret}`,
    'Content-Type': 'application/json',
    'Content-Length': String(body.length),
  });
  inflight.req.write(body.slice(0, 5));
  await received;

  // The drain is forced by closing every connection once shutdownTimeoutMs has passed: watched
  // as that event, not as elapsed wall time (which a busy machine stretches).
  const forced = jest.spyOn(server.api, 'closeAllConnections');
  const closing = server.shutdown('test');
  expect(deps.state.draining).toBe(true);
  inflight.req.end(body.slice(5));
  const res = await inflight.response;
  expect(res.status).toBe(201);
  expect(JSON.parse(res.body).data.name).toBe('created during drain');
  await closing;
  expect(forced).not.toHaveBeenCalled(); // drained, not forced by the timeout

  await expect(
    new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: server.apiPort, path: '/healthz', agent: false }, resolve)
        .on('error', reject);
    }),
  ).rejects.toThrow(/ECONNREFUSED/);
  await expect(db.query('SELECT 1')).rejects.toThrow();
});
