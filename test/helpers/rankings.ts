/**
 * Usage records for rankings tests: one event per call with the fields the rollup groups by,
 * everything else fixed.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { expectSchema } from './expect-schema';
import type { Express } from 'express';
import type { UsageEvent } from '../../src/usage/types';
import type { Queryable } from '../../src/store/db';
import { insertUsageEvents } from '../../src/usage/direct-recorder';

/** What a rankings test varies in a usage record. */
export interface RankedUse {
  org: string;
  model: string;
  /** ISO timestamp. */
  at: string;
  prompt: number;
  completion?: number;
  inputModality?: string | null;
  outputModality?: string | null;
  apiType?: UsageEvent['apiType'];
  toolCalls?: number;
}

/** The usage event of `u`. */
export function rankedEvent(u: RankedUse): UsageEvent {
  return {
    id: `gen-emb-${Math.floor(Date.parse(u.at) / 1000)}-${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    createdAt: new Date(u.at),
    orgId: u.org,
    workspaceId: randomUUID(),
    keyHash: 'f'.repeat(64),
    endUser: null,
    sessionId: null,
    apiType: u.apiType ?? 'embeddings',
    model: u.model,
    provider: 'openai',
    upstreamId: null,
    tokensPrompt: u.prompt,
    tokensCompletion: u.completion ?? 0,
    costUsd: 0,
    latencyMs: 1,
    generationTimeMs: 1,
    attempts: 1,
    status: 'ok',
    inputModality: u.inputModality === undefined ? 'text' : u.inputModality,
    userAgent: null,
    httpReferer: null,
    appTitle: null,
    origin: null,
    finishReason: null,
    variant: null,
    outputModality: u.outputModality === undefined ? 'embeddings' : u.outputModality,
    toolCalls: u.toolCalls ?? 0,
    isByok: false,
    upstreamCostUsd: null,
    cachedTokens: 0,
  };
}

/** Insert the records of `uses` (in batches). */
export async function insertUses(db: Queryable, uses: RankedUse[]): Promise<void> {
  for (let i = 0; i < uses.length; i += 500) await insertUsageEvents(db, uses.slice(i, i + 500).map(rankedEvent));
}

/** GET the dataset with `query` as `secret`. */
export function getRankings(app: Express, secret: string, query: Record<string, string> | string = {}) {
  const req = request(app).get('/api/v1/datasets/rankings-daily').set('Authorization', `Bearer ${secret}`);
  const sent =
    typeof query === 'string'
      ? request(app).get(`/api/v1/datasets/rankings-daily?${query}`).set('Authorization', `Bearer ${secret}`)
      : req.query(query);
  // Every answered request is checked against the answer's schema (the dashboard reads the same type).
  return sent.expect((res) => {
    if (res.status === 200) expectSchema(res.body, 'datasets.rankings.response');
  });
}
