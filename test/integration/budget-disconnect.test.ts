/**
 * The budget step when the client leaves (src/http/budget.ts), on the real embeddings path with
 * real Redis and Postgres and a fake OpenAI upstream:
 * - gone while the reservation is being made (a cold budget cache): no upstream call is made and
 *   the hold is released at once, instead of the call running with a hold nobody settles;
 * - gone while the upstream call is in flight: the call still completes and is recorded, so the
 *   hold settles to its real cost instead of being released (which would under-count spend).
 * The guard is the real one, wrapped to hold the reserve until the test says so and to report
 * whether each reservation was settled or released.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import request from 'supertest';
import {
  DATABASE_URL,
  REDIS_URL,
  deleteRedisPrefix,
  describeIf,
  openTestPostgres,
  openTestRedisKv,
} from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, type TestGateway } from '../helpers/gateway';
import { startFakeFleet, type FakeFleet } from '../fakes/providers';
import { FAST_UPSTREAM } from '../fakes/gateway-harness';
import { switchable } from '../helpers/switchable';
import type { Reservation, SpendGuard } from '../../src/budgets/types';
import type { Database } from '../../src/store/db';
import type { RedisKv } from '../../src/kv/redis';

const MODEL = 'openai/text-embedding-3-small';

type Outcome = { kind: 'settle'; usd: number } | { kind: 'release' };

/** A promise and the function that resolves it. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** `p`, or 'timed out' after `ms` (a bound on a wait for an event, not a timing assertion). */
function within<T>(p: Promise<T>, ms: number): Promise<T | 'timed out'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'timed out'>((r) => (timer = setTimeout(() => r('timed out'), ms)));
  return Promise.race([p, bound]).finally(() => clearTimeout(timer));
}

/** The real guard, made to take the round-trip path; its reserve waits for `gate`, its outcome is reported. */
function observedGuard(inner: SpendGuard, gate: Promise<void>) {
  const entered = deferred();
  const outcome = deferred<Outcome>();
  const guard: SpendGuard = {
    async reserve(key, usd, requestId) {
      entered.resolve();
      await gate;
      const held: Reservation = await inner.reserve(key, usd, requestId);
      return {
        settle: async (actual) => {
          await held.settle(actual);
          outcome.resolve({ kind: 'settle', usd: actual });
        },
        release: async () => {
          await held.release();
          outcome.resolve({ kind: 'release' });
        },
      };
    },
  };
  return { guard, entered: entered.promise, outcome: outcome.promise };
}

describeIf(REDIS_URL && DATABASE_URL)('budget holds when the client disconnects', () => {
  let db: Database;
  let kv: RedisKv;
  let fleet: FakeFleet;
  let gw: TestGateway;
  let server: http.Server;
  let realGuard: SpendGuard;
  /** The guard each test puts in (the gateway is built over this stand-in). */
  const spend = switchable<SpendGuard>();
  const serverSockets: Socket[] = [];

  beforeAll(async () => {
    db = await openTestPostgres();
    kv = await openTestRedisKv();
    fleet = await startFakeFleet();
    gw = await createTestGateway(
      db,
      kv,
      { ...fleet.overrides, upstream: { ...FAST_UPSTREAM, attemptTimeoutMs: 10_000, deadlineMs: 15_000 } },
      undefined,
      {
        wrap: { spend: spend.wrap },
      },
    );
    realGuard = spend.real;
    server = http.createServer(gw.app);
    server.on('connection', (s) => serverSockets.push(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await gw.deps.routing.close();
    await gw.deps.recorder.close();
    await fleet.closeAll();
    await deleteRedisPrefix(kv.prefix);
    await kv.close();
    await db.close();
  });
  afterEach(() => {
    spend.use(undefined);
    fleet.resetAll();
  });

  /** A workspace with a daily budget and an inference key in it. */
  async function budgetedKey(): Promise<{ secret: string }> {
    const slug = `dc-${Math.random().toString(36).slice(2, 10)}`;
    const mgmt = bearer(gw.mgmtKey);
    const ws = await request(gw.app)
      .post('/api/v1/workspaces')
      .set('Authorization', mgmt)
      .send({ name: slug, slug })
      .expect(201);
    await request(gw.app)
      .put(`/api/v1/workspaces/${slug}/budgets/daily`)
      .set('Authorization', mgmt)
      .send({ limit_usd: 10 })
      .expect(200);
    const { secret } = await createInferenceKey(gw, { name: 'k', workspace_id: ws.body.data.id });
    return { secret };
  }

  /** Send an embeddings request and return a way to drop it, plus the server side of its socket closing. */
  function sendAndKeep(secret: string): { drop: () => void; serverSocketClosed: () => Promise<void> } {
    const before = serverSockets.length;
    const { port } = server.address() as AddressInfo;
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/embeddings',
      headers: { authorization: bearer(secret), 'content-type': 'application/json' },
    });
    req.on('error', () => undefined);
    req.end(JSON.stringify({ model: MODEL, input: 'a client that leaves' }));
    return {
      drop: () => req.destroy(),
      serverSocketClosed: async () => {
        const socket = serverSockets[before];
        if (!socket) throw new Error('the request never reached the server');
        if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
      },
    };
  }

  test('a client gone during a cold reserve gets no upstream call, and its hold is released', async () => {
    const { secret } = await budgetedKey();
    const gate = deferred();
    const observed = observedGuard(realGuard, gate.promise);
    spend.use(observed.guard);
    const sent = sendAndKeep(secret);
    await observed.entered;
    sent.drop();
    await sent.serverSocketClosed();
    gate.resolve();
    expect(await within(observed.outcome, 5000)).toEqual({ kind: 'release' });
    expect(fleet.fakes.openai!.calls).toHaveLength(0);
  });

  test('a client gone during the upstream call: the call is recorded and the hold settles to its cost', async () => {
    const { secret } = await budgetedKey();
    const opened = Promise.resolve();
    const observed = observedGuard(realGuard, opened);
    spend.use(observed.guard);
    const upstreamIn = deferred();
    const answerUpstream = deferred();
    fleet.fakes.openai!.queue({ holdUntil: answerUpstream.promise, arrived: upstreamIn.resolve });
    const sent = sendAndKeep(secret);
    await upstreamIn.promise;
    sent.drop();
    await sent.serverSocketClosed();
    answerUpstream.resolve();
    const outcome = await within(observed.outcome, 5000);
    expect(outcome).toMatchObject({ kind: 'settle' });
    await gw.deps.recorder.flush();
    const rows = await db.query<{ cost: number }>(
      'SELECT cost_usd::double precision AS cost FROM generations WHERE key_hash IS NOT NULL AND model = $1',
      [MODEL],
    );
    expect(rows).toHaveLength(1);
    expect(outcome !== 'timed out' && outcome.kind === 'settle' ? outcome.usd : NaN).toBeCloseTo(
      Number(rows[0]!.cost),
      12,
    );
  });
});
