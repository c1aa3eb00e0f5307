/**
 * A valid usage event for outbox tests: organization `orgId`, the `n`th of a series (distinct id,
 * tokens and cost per `n`), everything else fixed.
 */
import { randomUUID } from 'node:crypto';
import type { UsageEvent } from '../../src/usage/types';

export function usageEvent(orgId: string, n: number): UsageEvent {
  return {
    id: `gen-emb-${1_790_000_000 + n}-${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    createdAt: new Date(Date.UTC(2026, 10, 22, 8, 0, n % 60)),
    orgId, workspaceId: randomUUID(), keyHash: 'f'.repeat(64), endUser: null, sessionId: null, apiType: 'embeddings',
    model: 'openai/text-embedding-3-small', provider: 'openai', upstreamId: null, tokensPrompt: 10 + n, tokensCompletion: 0,
    costUsd: (10 + n) * 2e-8, latencyMs: 40, generationTimeMs: 35, attempts: 1, status: 'ok', inputModality: 'text',
    userAgent: 'jest', httpReferer: null, appTitle: null,
  };
}
