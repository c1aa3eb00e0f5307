/**
 * Spend enforcement on the real embeddings path (no test-only route): two gateway instances
 * share one Postgres and one Redis (the Redis Stream usage outbox included) and call a fake
 * OpenAI upstream. Shows that concurrent requests never spend past a budget or key limit — when
 * the reservation equals the real cost (token-id input), when an upstream claims more tokens than
 * the input can hold, and when Redis loses the counters while usage is still in the outbox.
 */
import type { Redis } from 'ioredis';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import {
  DATABASE_URL,
  REDIS_URL,
  deleteRedisPrefix,
  describeIf,
  openTestPostgres,
  openTestRedisKv,
} from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, gatewayApp, type TestGateway } from '../helpers/gateway';
import { startFakeFleet, type FakeFleet } from '../fakes/providers';
import { FAST_UPSTREAM } from '../fakes/gateway-harness';
import type { AppDeps } from '../../src/deps';
import type { Database } from '../../src/store/db';
import type { RedisKv } from '../../src/kv/redis';

const MODEL = 'openai/text-embedding-3-small';
/** $0.02 per million tokens (config/models.yaml). */
const PRICE = 0.02 / 1e6;
const TOKENS = 1000;
const COST = TOKENS * PRICE;
const N = 5;
const tokenInput = () => Array.from({ length: TOKENS }, (_, i) => i % 50000);

describeIf(REDIS_URL && DATABASE_URL)(
  'spend limits on POST /embeddings: two instances, one Redis, one Postgres',
  () => {
    let db: Database;
    let kv1: RedisKv;
    let kv2: RedisKv;
    let fleet: FakeFleet;
    let gw: TestGateway;
    const deps: AppDeps[] = [];
    const servers: http.Server[] = [];
    const urls: string[] = [];

    beforeAll(async () => {
      db = await openTestPostgres();
      kv1 = await openTestRedisKv();
      kv2 = await openTestRedisKv(kv1.prefix);
      fleet = await startFakeFleet();
      // A long flush interval keeps usage in the Redis Stream until a test flushes it.
      // Generous upstream timeouts: 100 requests at once on a busy CI machine must not time out.
      const overrides = {
        ...fleet.overrides,
        upstream: { ...FAST_UPSTREAM, attemptTimeoutMs: 15_000, deadlineMs: 20_000 },
        usage: { flushIntervalMs: 600_000, batchSize: 5000 },
      };
      gw = await createTestGateway(db, kv1, overrides);
      const second = await gatewayApp(db, kv2, overrides);
      for (const app of [gw.app, second.app]) {
        const server = http.createServer(app);
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        servers.push(server);
        urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/embeddings`);
      }
      deps.push(gw.deps, second.deps);
    });
    afterAll(async () => {
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
      for (const d of deps) {
        await d.routing.close();
        await d.recorder.close();
      }
      await fleet.closeAll();
      await deleteRedisPrefix(kv1.prefix);
      await kv2.close();
      await kv1.close();
      await db.close();
    });
    beforeEach(() => fleet.resetAll());

    const mgmt = () => bearer(gw.mgmtKey);

    /** A new workspace with one inference key in it (and `budget` as its daily budget, if given). */
    async function workspace(
      budget: number | null,
      keyBody: Record<string, unknown> = {},
    ): Promise<{ id: string; secret: string }> {
      const slug = `ws-${Math.random().toString(36).slice(2, 10)}`;
      const ws = await request(gw.app)
        .post('/api/v1/workspaces')
        .set('Authorization', mgmt())
        .send({ name: slug, slug });
      expect(ws.status).toBe(201);
      if (budget !== null) {
        const put = await request(gw.app)
          .put(`/api/v1/workspaces/${slug}/budgets/daily`)
          .set('Authorization', mgmt())
          .send({ limit_usd: budget });
        expect(put.status).toBe(200);
      }
      const { secret } = await createInferenceKey(gw, { name: 'k', workspace_id: ws.body.data.id, ...keyBody });
      return { id: ws.body.data.id as string, secret };
    }

    /** Fire `count` requests at once, alternating instances; returns their statuses. */
    async function burst(secret: string, count: number, input: unknown): Promise<number[]> {
      return Promise.all(
        Array.from({ length: count }, async (_, i) => {
          const res = await fetch(urls[i % 2] as string, {
            method: 'POST',
            headers: { authorization: bearer(secret), 'content-type': 'application/json' },
            body: JSON.stringify({ model: MODEL, input }),
          });
          const text = await res.text();
          if (res.status !== 200 && res.status !== 402) console.log('UNEXPECTED', res.status, text);
          return res.status;
        }),
      );
    }

    async function recordedSpend(workspaceId: string): Promise<number> {
      await Promise.all(deps.map((d) => d.recorder.flush()));
      const rows = await db.query<{ s: number; n: number }>(
        'SELECT COALESCE(SUM(cost_usd), 0)::double precision AS s, COUNT(*)::int AS n FROM generations WHERE workspace_id = $1',
        [workspaceId],
      );
      return Number(rows[0]?.s ?? 0);
    }

    const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

    test('a workspace budget worth exactly N requests: 20×N concurrent → exactly N succeed, spend stays within it', async () => {
      const ws = await workspace(N * COST);
      const statuses = await burst(ws.secret, 20 * N, tokenInput());
      expect(count(statuses, 200)).toBe(N);
      expect(count(statuses, 402)).toBe(19 * N);
      const spent = await recordedSpend(ws.id);
      expect(spent).toBeCloseTo(N * COST, 12);
      expect(spent).toBeLessThanOrEqual(N * COST + 1e-15);
    });

    test('a key limit worth exactly N requests holds the same way', async () => {
      const ws = await workspace(null, { limit: N * COST, limit_reset: 'daily' });
      const statuses = await burst(ws.secret, 20 * N, tokenInput());
      expect(count(statuses, 200)).toBe(N);
      expect(count(statuses, 402)).toBe(19 * N);
      expect(await recordedSpend(ws.id)).toBeLessThanOrEqual(N * COST + 1e-15);
    });

    test('an upstream claiming more tokens than the input can hold cannot push spend past the limit', async () => {
      const text = '日本語のテキスト'.repeat(4); // 32 characters, 96 UTF-8 bytes
      const bound = Buffer.byteLength(text) + 4;
      const limit = 2.5 * bound * PRICE; // room for two requests at their upper bound
      const ws = await workspace(limit);
      fleet.fakes.openai!.setSticky({
        status: 200,
        body: {
          object: 'list',
          model: 'text-embedding-3-small',
          data: [{ object: 'embedding', index: 0, embedding: [0.5, 0.25] }],
          usage: { prompt_tokens: 1_000_000, total_tokens: 1_000_000 },
        },
      });
      const statuses = await burst(ws.secret, 20, text);
      expect(count(statuses, 200)).toBe(2);
      expect(count(statuses, 402)).toBe(18);
      const spent = await recordedSpend(ws.id);
      expect(spent).toBeLessThanOrEqual(limit);
      expect(spent).toBeCloseTo(2 * bound * PRICE, 12);
    });

    test('multimodal input: an upstream claiming any number of tokens for an image cannot push spend past the limit', async () => {
      // Each image is bounded by the endpoint's context length (128,000 tokens for cohere/embed-v4.0),
      // its text parts by their bytes: 'a cat' → 5 + 4 markers.
      const input = [
        {
          content: [
            { type: 'text', text: 'a cat' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
      ];
      const bound = (5 + 4 + 128_000) * (0.12 / 1e6) + 0.00047;
      const limit = 2.5 * bound; // room for two requests at their upper bound
      const ws = await workspace(limit);
      fleet.fakes.cohere!.setSticky({
        status: 200,
        body: {
          id: 'c1',
          embeddings: { float: [[0.5, 0.25]] },
          meta: { billed_units: { input_tokens: 10_000_000, images: 1 } },
        },
      });
      const statuses = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await fetch(urls[i % 2] as string, {
            method: 'POST',
            headers: { authorization: bearer(ws.secret), 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'cohere/embed-v4.0', input }),
          });
          await res.arrayBuffer();
          return res.status;
        }),
      );
      expect(count(statuses, 200)).toBe(2);
      expect(count(statuses, 402)).toBe(18);
      const spent = await recordedSpend(ws.id);
      expect(spent).toBeLessThanOrEqual(limit);
      expect(spent).toBeCloseTo(2 * bound, 9);
    });

    test('counters lost while usage is still in the outbox are rebuilt from the table plus the backlog: no overspend', async () => {
      const ws = await workspace(N * COST);
      for (let i = 0; i < 3; i++) expect((await burst(ws.secret, 1, tokenInput()))[0]).toBe(200);
      // Redis loses the budget counters (eviction, failover) but keeps the usage stream.
      const keys = await (kv1.connection as Redis).keys(`${kv1.prefix}budget:*`);
      expect(keys.length).toBeGreaterThan(0);
      await (kv1.connection as Redis).del(...keys);
      const rows = await db.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM generations WHERE workspace_id = $1', [
        ws.id,
      ]);
      expect(Number(rows[0]?.n)).toBe(0); // still only in the outbox
      const statuses = await burst(ws.secret, 10 * N, tokenInput());
      expect(count(statuses, 200)).toBe(N - 3);
      const spent = await recordedSpend(ws.id);
      expect(spent).toBeCloseTo(N * COST, 12);
    });
  },
);
