/**
 * Test-only HTTP surface for spend enforcement, independent of the embeddings route: an outer
 * app that serves `POST /test/spend` (reserve the estimate through `deps.spend`, write the usage
 * event, settle — or release when asked) in front of the real gateway app, with the real error
 * handler, so 402/503 envelopes are exactly what clients see.
 */
import { randomUUID } from 'node:crypto';
import express, { type Express, type Request, type Response } from 'express';
import type { AppDeps } from '../../src/deps';
import { createApp } from '../../src/app';
import { errorHandler } from '../../src/http/error-handler';
import { AuthenticationError } from '../../src/errors';
import { hashSecret } from '../../src/keys/secrets';
import { insertUsageEvents } from '../../src/usage/direct-recorder';
import type { ApiKeyRecord } from '../../src/keys/types';
import type { Queryable } from '../../src/store/db';

/** Write one usage event of `costUsd` for `key` at `atMs` (what the embeddings path records). */
export async function recordSpend(db: Queryable, key: ApiKeyRecord, costUsd: number, atMs: number): Promise<void> {
  await insertUsageEvents(db, [{
    id: `gen-test-${randomUUID()}`, createdAt: new Date(atMs), orgId: key.orgId, workspaceId: key.workspaceId, keyHash: key.hash,
    endUser: null, sessionId: null, apiType: 'embeddings', model: 'test/model', provider: 'test', upstreamId: null,
    tokensPrompt: 1, tokensCompletion: 0, costUsd, latencyMs: 1, generationTimeMs: 1, attempts: 1, status: 'ok',
    inputModality: 'text', userAgent: null, httpReferer: null, appTitle: null,
  }]);
}

/** Body of `POST /test/spend`. */
export interface SpendBody {
  estimate: number;
  actual?: number;
  /** Release instead of settling (the upstream call failed). */
  fail?: boolean;
}

/** The gateway app plus `POST /test/spend`. */
export function spendApp(deps: AppDeps): Express {
  const outer = express();
  outer.post('/test/spend', express.json(), async function testSpend(req: Request, res: Response) {
    const secret = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const key = secret ? await deps.keyCache.get(hashSecret(secret)) : null;
    if (!key) throw new AuthenticationError();
    const body = req.body as SpendBody;
    const reservation = await deps.spend.reserve(key, body.estimate, randomUUID());
    if (body.fail) {
      await reservation.release();
      res.json({ released: true });
      return;
    }
    const actual = body.actual ?? body.estimate;
    await recordSpend(deps.db, key, actual, deps.clock());
    await reservation.settle(actual);
    res.json({ settled: actual });
  });
  outer.use(createApp(deps));
  outer.use(errorHandler(deps.logger));
  return outer;
}
