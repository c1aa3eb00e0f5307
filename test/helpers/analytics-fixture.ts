/**
 * Usage rows for analytics tests: two organizations with known traffic, keys with names and a
 * creator, a second workspace, and rows whose labels cannot be resolved.
 */
import request from 'supertest';
import { randomUUID } from 'node:crypto';
import type { UsageEvent } from '../../src/usage/types';
import { insertUsageEvents } from '../../src/usage/direct-recorder';
import { upsertOrgMember } from '../../src/orgs/repository';
import { hashSecret } from '../../src/keys/secrets';
import { bearer, createInferenceKey, type TestGateway } from './gateway';

/** A usage event with defaults; `over` sets what a test cares about. */
export function event(
  orgId: string,
  workspaceId: string,
  keyHash: string,
  createdAt: string,
  over: Partial<UsageEvent> = {},
): UsageEvent {
  return {
    id: `gen-emb-${Math.floor(Date.parse(createdAt) / 1000)}-${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    createdAt: new Date(createdAt),
    orgId,
    workspaceId,
    keyHash,
    endUser: null,
    sessionId: null,
    apiType: 'embeddings',
    model: 'm1',
    provider: 'openai',
    upstreamId: null,
    tokensPrompt: 10,
    tokensCompletion: 0,
    costUsd: 0,
    latencyMs: 100,
    generationTimeMs: 50,
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
    ...over,
  };
}

/** What {@link seedAnalytics} created. */
export interface Seeded {
  alpha: string;
  beta: string;
  teamId: string;
  /** A hash with rows but no key (its label cannot be resolved). */
  orphan: string;
  /** The other organization's management key hash, used on one of our rows: never named. */
  foreignHash: string;
  otherWorkspaceId: string;
}

/** The window every seeded row falls in. */
export const WINDOW = { start: '2026-11-01T00:00:00Z', end: '2026-11-20T00:00:00Z' };

/**
 * Seed `gw`'s organization with five rows (two keys, two workspaces) and `other`'s with one row
 * whose every value is distinct ("secret-…"), so any leak shows.
 */
export async function seedAnalytics(gw: TestGateway, other: TestGateway): Promise<Seeded> {
  const db = gw.deps.db;
  await upsertOrgMember(db, gw.orgId, 'user_a', 'member', 'a@example.com');
  await upsertOrgMember(db, other.orgId, 'user_secret', 'member', 'secret@other.example');
  const alpha = (await createInferenceKey(gw, { name: 'alpha', creator_user_id: 'user_a' })).hash;
  const beta = (await createInferenceKey(gw, { name: 'beta' })).hash;
  const team = await request(gw.app)
    .post('/api/v1/workspaces')
    .set('Authorization', bearer(gw.mgmtKey))
    .send({ name: 'Team', slug: 'team' });
  const teamId = team.body.data.id as string;
  const secretKey = (await createInferenceKey(other, { name: 'secret-key', creator_user_id: 'user_secret' })).hash;
  const orphan = 'e'.repeat(64);
  const foreignHash = hashSecret(other.mgmtKey);
  const ws = gw.defaultWorkspaceId;
  await insertUsageEvents(db, [
    event(gw.orgId, ws, alpha, '2026-11-10T10:00:00Z', {
      tokensPrompt: 100,
      costUsd: 0.001,
      latencyMs: 100,
      generationTimeMs: 50,
      endUser: 'eu1',
      appTitle: 'App1',
      origin: 'https://a.example',
    }),
    event(gw.orgId, ws, alpha, '2026-11-10T11:30:00Z', {
      tokensPrompt: 2000,
      costUsd: 0.002,
      latencyMs: 200,
      generationTimeMs: 100,
      endUser: 'eu2',
    }),
    event(gw.orgId, teamId, beta, '2026-11-11T09:00:00Z', {
      model: 'm2',
      provider: 'cohere',
      tokensPrompt: 50000,
      costUsd: 0.01,
      latencyMs: 300,
      generationTimeMs: 500,
      isByok: true,
      upstreamCostUsd: 0.005,
      variant: 'free',
      finishReason: 'stop',
    }),
    event(gw.orgId, teamId, beta, '2026-11-12T00:00:00Z', {
      model: 'm2',
      provider: 'voyage',
      tokensPrompt: 5,
      costUsd: 0.0001,
      latencyMs: 400,
      generationTimeMs: 10,
      cachedTokens: 2,
    }),
    event(gw.orgId, ws, orphan, '2026-11-13T00:00:00Z', {
      provider: null,
      latencyMs: null,
      generationTimeMs: null,
      tokensPrompt: 2_000_000,
    }),
    event(gw.orgId, ws, foreignHash, '2026-11-14T00:00:00Z', {
      tokensPrompt: 1,
      latencyMs: null,
      generationTimeMs: null,
    }),
    event(other.orgId, other.defaultWorkspaceId, secretKey, '2026-11-10T10:00:00Z', {
      model: 'secret-model',
      provider: 'secret-prov',
      endUser: 'secret-user',
      appTitle: 'secret-app',
      origin: 'secret-origin',
      variant: 'secret-variant',
      finishReason: 'secret-finish',
      tokensPrompt: 777,
      costUsd: 7,
      latencyMs: 7777,
    }),
  ]);
  return { alpha, beta, teamId, orphan, foreignHash, otherWorkspaceId: other.defaultWorkspaceId };
}
