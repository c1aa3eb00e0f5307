/**
 * Test-only HTTP surface for spend enforcement, independent of the embeddings route: an outer
 * app that serves `POST /test/spend` (reserve the estimate through `deps.spend`, write the usage
 * event, settle — or release when asked) in front of the real gateway app, with the real error
 * handler, so 402/503 envelopes are exactly what clients see.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type Request, type Response } from 'express';
import type { AppDeps } from '../../src/deps';
import { createApp } from '../../src/app';
import { errorHandler } from '../../src/http/error-handler';
import { AuthenticationError } from '../../src/errors';
import { hashSecret } from '../../src/keys/secrets';
import { insertUsageEvents } from '../../src/usage/direct-recorder';
import type { ApiKeyRecord } from '../../src/keys/types';
import type { Database, Queryable } from '../../src/store/db';
import type { ConfigOverrides } from '../../src/config';
import type { RedisKv } from '../../src/kv/redis';
import { openTestPostgres, openTestRedisKv } from '../helpers/services';
import { createTestGateway, gatewayApp, type TestGateway } from '../helpers/gateway';

/** Write one usage event of `costUsd` for `key` at `atMs` (what the embeddings path records). */
export async function recordSpend(db: Queryable, key: ApiKeyRecord, costUsd: number, atMs: number): Promise<void> {
  await insertUsageEvents(db, [
    {
      id: `gen-test-${randomUUID()}`,
      createdAt: new Date(atMs),
      orgId: key.orgId,
      workspaceId: key.workspaceId,
      keyHash: key.hash,
      endUser: null,
      sessionId: null,
      apiType: 'embeddings',
      model: 'test/model',
      provider: 'test',
      upstreamId: null,
      tokensPrompt: 1,
      tokensCompletion: 0,
      costUsd,
      latencyMs: 1,
      generationTimeMs: 1,
      attempts: 1,
      status: 'ok',
      inputModality: 'text',
      userAgent: null,
      httpReferer: null,
      appTitle: null,
      origin: null,
      finishReason: null,
      variant: null,
      outputModality: 'embeddings',
      toolCalls: 0,
      isByok: false,
      upstreamCostUsd: null,
      cachedTokens: 0,
    },
  ]);
}

/** Body of `POST /test/spend`. */
export interface SpendBody {
  estimate: number;
  actual?: number;
  /** Release instead of settling (the upstream call failed). */
  fail?: boolean;
  /** Settle first and write the usage event after (a record still on its way when the counter moves). */
  recordLate?: boolean;
}

/** The gateway app plus `POST /test/spend`. */
export function spendApp(deps: AppDeps): Express {
  const outer = express();
  outer.post('/test/spend', express.json(), async function testSpend(req: Request, res: Response) {
    const secret = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const key = secret ? await deps.keyCache.get(hashSecret(secret)) : null;
    if (!key) throw new AuthenticationError();
    const body = req.body as SpendBody;
    // As the embeddings service reserves: without waiting when it can (a lease), else the round trip.
    const reservation =
      deps.spend.reserveNow?.(key, body.estimate) ?? (await deps.spend.reserve(key, body.estimate, randomUUID()));
    if (body.fail) {
      await reservation.release();
      res.json({ released: true });
      return;
    }
    const actual = body.actual ?? body.estimate;
    if (body.recordLate) {
      await reservation.settle(actual);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await recordSpend(deps.db, key, actual, deps.clock());
    } else {
      await recordSpend(deps.db, key, actual, deps.clock());
      await reservation.settle(actual);
    }
    res.json({ settled: actual });
  });
  outer.use(createApp(deps));
  outer.use(errorHandler(deps.logger));
  return outer;
}

/** Two gateway instances on one Postgres and one Redis prefix (separate connections), each serving {@link spendApp}. */
export interface SpendPair {
  db: Database;
  kv1: RedisKv;
  /** The first instance, with a management key. */
  gw: TestGateway;
  instances: AppDeps[];
  urls: string[];
  close(): Promise<void>;
}

/** Start a {@link SpendPair} with `overrides` on both instances. */
export async function startSpendPair(overrides: ConfigOverrides = {}): Promise<SpendPair> {
  const db = await openTestPostgres();
  const kv1 = await openTestRedisKv();
  const kv2 = await openTestRedisKv(kv1.prefix);
  const gw = await createTestGateway(db, kv1, overrides);
  const second = await gatewayApp(db, kv2, overrides);
  const instances = [gw.deps, second.deps];
  const servers: http.Server[] = [];
  const urls: string[] = [];
  for (const deps of instances) {
    const server = http.createServer(spendApp(deps));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
  return {
    db,
    kv1,
    gw,
    instances,
    urls,
    async close() {
      await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
      await Promise.all(
        instances.map(async (d) => {
          await d.spend.close?.();
        }),
      );
      await kv2.close();
      await kv1.close();
      await db.close();
    },
  };
}
