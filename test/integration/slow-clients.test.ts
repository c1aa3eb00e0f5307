/**
 * Slow clients do not starve others (issue 33 item 12): over real sockets on 127.0.0.1, many
 * connections dribbling their request heads, others dribbling JSON bodies, slow uploads, and
 * idle keep-alive sockets, while a well-behaved client keeps making requests: every one of its
 * requests is answered with success. Bounded in connections and time; the only time check is a
 * generous "answered at all" timeout. The dribblers are cut by the server's own timeouts.
 */
import http from 'node:http';
import net from 'node:net';
import { DATABASES, uniqueId } from '../helpers/services';
import { testConfig } from '../helpers/gateway';
import { filePartHead } from '../helpers/multipart-upload';
import { assembleDeps } from '../../src/deps';
import { startServer, type RunningServer } from '../../src/server';
import { createLogger } from '../../src/observability/logger';
import { provisionOrg } from '../../src/orgs/provision';
import { MemoryKv } from '../../src/kv/memory';
import type { Database } from '../../src/store/db';

const HEAD_DRIBBLERS = 60;
const BODY_DRIBBLERS = 30;
const UPLOAD_DRIBBLERS = 4;
const IDLE_KEEPALIVE = 100;
const WELL_BEHAVED_REQUESTS = 40;
/** Generous: a request of the well-behaved client not answered in this long counts as starved. */
const ANSWERED_WITHIN_MS = 10_000;

/** A connection that sends `head` then one byte of `rest` every `everyMs`, until closed. */
function dribbler(port: number, head: string, rest: string, everyMs: number): { socket: net.Socket; stop(): void } {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(head);
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= rest.length) return clearInterval(timer);
    socket.write(rest[i++] as string);
  }, everyMs);
  return { socket, stop: () => (clearInterval(timer), socket.destroy()) };
}

/** One request of the well-behaved client: status, or an error if not answered in time. */
function wellBehaved(agent: http.Agent, port: number, path: string, secret: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      {
        host: '127.0.0.1',
        port,
        path,
        agent,
        headers: { authorization: `Bearer ${secret}` },
        timeout: ANSWERED_WITHIN_MS,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${path} not answered within ${ANSWERED_WITHIN_MS} ms`)));
    req.on('error', reject);
  });
}

describe.each(DATABASES)('slow clients on $name', (dbKind) => {
  let db: Database;
  let server: RunningServer;
  let secret: string;
  let uploader: string;

  beforeAll(async () => {
    db = await dbKind.open();
    const config = testConfig({
      server: {
        port: 0,
        metricsPort: 0,
        host: '127.0.0.1',
        headersTimeoutMs: 2000,
        requestTimeoutMs: 4000,
        shutdownTimeoutMs: 2000,
      },
      files: { uploadIdleTimeoutMs: 1000, uploadDeadlineMs: 3000 },
    });
    const deps = await assembleDeps(config, db, new MemoryKv(`t:${uniqueId()}:`), { logger: createLogger('silent') });
    secret = (await db.transaction((tx) => provisionOrg(tx, 'Polite Org'))).secret;
    uploader = (await db.transaction((tx) => provisionOrg(tx, 'Slow Org'))).secret;
    server = await startServer(deps);
  });
  afterAll(async () => {
    await server.shutdown('test');
  });

  test('dribbling heads, bodies and uploads plus idle keep-alive sockets do not starve a well-behaved client', async () => {
    const port = server.apiPort;
    const dribblers = [
      ...Array.from({ length: HEAD_DRIBBLERS }, () =>
        dribbler(port, 'GET /api/v1/key HTTP/1.1\r\n', `Host: x\r\nX-Pad: ${'p'.repeat(200)}\r\n\r\n`, 150),
      ),
      ...Array.from({ length: BODY_DRIBBLERS }, () =>
        dribbler(
          port,
          `POST /api/v1/keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n`,
          `{"name":"${'n'.repeat(480)}"}`,
          150,
        ),
      ),
    ];
    // Slow uploads hold a database transaction while they last: on PGlite that is its only connection.
    if (dbKind.name === 'postgres') {
      for (let i = 0; i < UPLOAD_DRIBBLERS; i++) {
        dribblers.push(
          dribbler(
            port,
            `POST /api/v1/files HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${uploader}\r\nContent-Type: multipart/form-data; boundary=b0undary\r\nContent-Length: 100000\r\n\r\n${filePartHead('slow.txt')}`,
            'x'.repeat(10_000),
            100,
          ),
        );
      }
    }
    const idleAgent = new http.Agent({ keepAlive: true, maxSockets: IDLE_KEEPALIVE });
    await Promise.all(Array.from({ length: IDLE_KEEPALIVE }, () => wellBehaved(idleAgent, port, '/healthz', secret)));

    const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
    const statuses: number[] = [];
    try {
      const paths = ['/api/v1/key', '/api/v1/keys', '/api/v1/embeddings/models', '/readyz'];
      for (let i = 0; i < WELL_BEHAVED_REQUESTS; i++) {
        statuses.push(await wellBehaved(agent, port, paths[i % paths.length] as string, secret));
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      dribblers.forEach((d) => d.stop());
      idleAgent.destroy();
      agent.destroy();
    }
    expect(statuses).toHaveLength(WELL_BEHAVED_REQUESTS);
    // /api/v1/key with a management key is a 200 too (its own record); every answer a success.
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });
});
