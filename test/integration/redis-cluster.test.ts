/**
 * The gateway on a real Redis Cluster (three local primaries started by this file): two gateway
 * instances, each with its own Cluster connection on one key prefix, one database, a fake
 * OpenAI upstream. Through HTTP: the per-key rate limit counts across both, a budget worth N
 * requests admits exactly N of 20×N concurrent ones (the budget scripts' keys share a slot),
 * every answered request has its usage row (the usage stream), a key revoked on one instance is
 * refused by the other (pub/sub invalidation), and a circuit opened on one is open on the other.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Cluster } from 'ioredis';
import { DATABASE_URL, openTestPglite, openTestPostgres, uniqueId } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, gatewayApp, type TestGateway } from '../helpers/gateway';
import { requireClusterBinaries, startLocalRedisCluster, type LocalRedisCluster } from '../helpers/redis-cluster';
import { startFakeFleet, type FakeFleet } from '../fakes/providers';
import { FAST_UPSTREAM } from '../fakes/gateway-harness';
import { RedisKv } from '../../src/kv/redis';
import type { AppDeps } from '../../src/deps';
import type { Database } from '../../src/store/db';
import { USAGE_STREAM_KEY } from '../../src/usage/stream-outbox';
import { eventually } from '../helpers/eventually';
import { HEALTHY_CACHE_MS } from '../../src/routing/breaker';

const MODEL = 'openai/text-embedding-3-small';
/** $0.02 per million tokens (config/models.yaml); token-id input makes the reservation the real cost. */
const COST = 1000 * (0.02 / 1e6);
const tokenInput = () => Array.from({ length: 1000 }, (_, i) => i % 50000);
const N = 5;
const RATE_LIMIT = 40;

const runnable = requireClusterBinaries();
(runnable ? describe : describe.skip)('on a Redis Cluster: two instances, one prefix', () => {
  let cluster: LocalRedisCluster;
  let db: Database;
  let fleet: FakeFleet;
  let gw: TestGateway;
  const kvs: RedisKv[] = [];
  const deps: AppDeps[] = [];
  const servers: http.Server[] = [];
  const urls: string[] = [];
  /** Both instances' clock runs this far ahead of real time (moved to outlast the breaker's healthy cache). */
  const skew = { ms: 0 };
  const clock = () => Date.now() + skew.ms;

  beforeAll(async () => {
    cluster = await startLocalRedisCluster();
    db = await openTestPglite();
    fleet = await startFakeFleet();
    const prefix = `t:${uniqueId()}:`;
    for (let i = 0; i < 2; i++)
      kvs.push(await RedisKv.connect({ cluster: { nodes: cluster.nodes }, prefix, commandTimeoutMs: 5000 }));
    const overrides = {
      ...fleet.overrides,
      upstream: { ...FAST_UPSTREAM, attemptTimeoutMs: 15_000, deadlineMs: 20_000 },
      rateLimit: { limit: RATE_LIMIT, windowMs: 600_000 },
      breaker: { failureThreshold: 3, cooldownMs: 600_000 },
    };
    gw = await createTestGateway(db, kvs[0]!, overrides, clock);
    const second = await gatewayApp(db, kvs[1]!, overrides, clock);
    deps.push(gw.deps, second.deps);
    for (const app of [gw.app, second.app]) {
      const server = http.createServer(app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`);
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    for (const d of deps) {
      await d.routing.close();
      await d.recorder.close().catch(() => undefined);
    }
    await fleet?.closeAll();
    await Promise.all(kvs.map((kv) => kv.close()));
    await db?.close();
    await cluster?.stop();
  });

  const mgmt = () => bearer(gw.mgmtKey);

  /** Fire `count` embeddings requests at once, alternating instances and `secrets`. */
  async function burst(
    secrets: string[],
    count: number,
    input: unknown = 'hello',
  ): Promise<Array<{ status: number; id?: string }>> {
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const res = await fetch(`${urls[i % 2]}/embeddings`, {
          method: 'POST',
          headers: { authorization: bearer(secrets[i % secrets.length] as string), 'content-type': 'application/json' },
          body: JSON.stringify({ model: MODEL, input }),
        });
        const body = (await res.json()) as { id?: string };
        return { status: res.status, id: res.status === 200 ? body.id : undefined };
      }),
    );
  }
  const count = (answers: Array<{ status: number }>, status: number) =>
    answers.filter((a) => a.status === status).length;

  test("subscribe resolves on the Cluster subscriber's confirmation: one publish right after it is heard", async () => {
    let heard!: (m: string) => void;
    const got = new Promise<string>((resolve) => (heard = resolve));
    await kvs[1]!.subscribe('cluster-at-once', (m) => heard(m));
    await kvs[0]!.publish('cluster-at-once', 'hello');
    expect(await got).toBe('hello');
  });

  test('the client is a Cluster, and the budget keys of one workspace share a hash slot', async () => {
    expect(kvs[0]!.connection).toBeInstanceOf(Cluster);
    const slots = await Promise.all(
      ['budget:{ws-1}:daily:p:spent', 'budget:{ws-1}:daily:p:holds', 'keylimit:{ws-1}:abc:monthly:p:spent'].map((k) =>
        (kvs[0]!.connection as Cluster).cluster('KEYSLOT', kvs[0]!.prefix + k),
      ),
    );
    expect(new Set(slots).size).toBe(1);
  });

  test(`a per-key rate limit of ${RATE_LIMIT} counts across both instances`, async () => {
    const { secret } = await createInferenceKey(gw, { name: 'limited' });
    const answers = await burst([secret], RATE_LIMIT + 20);
    expect(count(answers, 429)).toBe(20);
    expect(count(answers, 200)).toBe(RATE_LIMIT);
  });

  test(`a budget worth ${N} requests: ${20 * N} concurrent → exactly ${N} succeed, each with one usage row`, async () => {
    const slug = `ws-${uniqueId()}`;
    const ws = await request(gw.app)
      .post('/api/v1/workspaces')
      .set('Authorization', mgmt())
      .send({ name: slug, slug })
      .expect(201);
    await request(gw.app)
      .put(`/api/v1/workspaces/${slug}/budgets/daily`)
      .set('Authorization', mgmt())
      .send({ limit_usd: N * COST })
      .expect(200);
    // Four keys, so no key reaches the rate limit.
    const keys = await Promise.all(
      [1, 2, 3, 4].map((i) => createInferenceKey(gw, { name: `b${i}`, workspace_id: ws.body.data.id })),
    );
    const answers = await burst(
      keys.map((k) => k.secret),
      20 * N,
      tokenInput(),
    );
    expect(count(answers, 200)).toBe(N);
    expect(count(answers, 402)).toBe(19 * N);

    // The usage stream (on the Cluster) delivers each answered request's row once.
    await Promise.all(deps.map((d) => d.recorder.flush()));
    const ids = answers.flatMap((a) => (a.id ? [a.id] : []));
    const rows = await db.query<{ id: string }>('SELECT id FROM generations WHERE workspace_id = $1', [
      ws.body.data.id,
    ]);
    expect(rows.map((r) => r.id).sort()).toEqual(ids.sort());
    const stream = await (kvs[0]!.connection as Cluster).xlen(kvs[0]!.prefix + USAGE_STREAM_KEY);
    expect(stream).toBe(0); // written and deleted
  });

  test('a key revoked on one instance is refused by the other (invalidation over cluster pub/sub)', async () => {
    const key = await createInferenceKey(gw, { name: 'to revoke' });
    const viaSecond = () =>
      fetch(`${urls[1]}/key`, { headers: { authorization: bearer(key.secret) } }).then(
        async (r) => (await r.arrayBuffer(), r.status),
      );
    expect(await viaSecond()).toBe(200); // now cached on the second instance
    await request(gw.app).delete(`/api/v1/keys/${key.hash}`).set('Authorization', mgmt()).expect(200);
    await eventually(async () => expect(await viaSecond()).toBe(401), { everyMs: 25 });
  });

  test('a circuit opened on one instance is open on the other (breaker state on the Cluster)', async () => {
    const { secret } = await createInferenceKey(gw, { name: 'breaker' });
    const openai = fleet.fakes.openai!;
    openai.setSticky({ status: 500, body: { error: { message: 'down' } } });
    for (let i = 0; i < 3; i++) {
      const res = await request(gw.app)
        .post('/api/v1/embeddings')
        .set('Authorization', bearer(secret))
        .send({ model: MODEL, input: 'x' });
      expect(res.status).toBeGreaterThanOrEqual(500);
    }
    const calls = openai.calls.length;
    // Past the second instance's "known healthy" look at the endpoint, so it asks the Cluster.
    skew.ms += HEALTHY_CACHE_MS + 1;
    const res = await fetch(`${urls[1]}/embeddings`, {
      method: 'POST',
      headers: { authorization: bearer(secret), 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, input: 'x' }),
    });
    expect(res.status).toBe(503);
    expect(openai.calls.length).toBe(calls); // the second instance never called the open endpoint
    openai.setSticky(null);
    skew.ms = 0;
  });

  // The usage outbox's stream, consumer group and dead letters on a Cluster, drained into Postgres.
  (DATABASE_URL ? test : test.skip)('the usage stream on the Cluster is drained into Postgres', async () => {
    const pgDb = await openTestPostgres();
    const kv = await RedisKv.connect({
      cluster: { nodes: cluster.nodes },
      prefix: `t:${uniqueId()}:`,
      commandTimeoutMs: 5000,
    });
    const gateway = await createTestGateway(pgDb, kv, { ...fleet.overrides, upstream: FAST_UPSTREAM });
    try {
      fleet.resetAll();
      const { secret } = await createInferenceKey(gateway);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await request(gateway.app)
          .post('/api/v1/embeddings')
          .set('Authorization', bearer(secret))
          .send({ model: MODEL, input: `t${i}` });
        expect(res.status).toBe(200);
        ids.push(res.body.id);
      }
      await gateway.deps.recorder.flush();
      const rows = await pgDb.query<{ id: string }>('SELECT id FROM generations WHERE id = ANY($1)', [ids]);
      expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    } finally {
      await gateway.deps.routing.close();
      await gateway.deps.recorder.close().catch(() => undefined);
      await kv.close();
      await pgDb.close();
    }
  });
});
