/**
 * Usage events for outbox tests. A valid one for organization `orgId`, the `n`th of a series (distinct id,
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
    origin: null, finishReason: null, variant: null, outputModality: 'embeddings', toolCalls: 0, isByok: false, upstreamCostUsd: null, cachedTokens: 0,
  };
}

/** A fixed event with short values, some null, for codec tests that compare encodings exactly. */
export const SAMPLE_USAGE_EVENT: UsageEvent = {
  id: 'gen-emb-1-abc', createdAt: new Date('2026-11-22T08:00:00.123Z'), orgId: 'o', workspaceId: 'w', keyHash: 'h',
  endUser: null, sessionId: 's', apiType: 'embeddings', model: 'm', provider: 'p', upstreamId: null, tokensPrompt: 3,
  tokensCompletion: 0, costUsd: 1.5e-7, latencyMs: 12, generationTimeMs: 10, attempts: 1, status: 'ok',
  inputModality: 'text', userAgent: null, httpReferer: null, appTitle: null,
    origin: null, finishReason: null, variant: null, outputModality: 'embeddings', toolCalls: 0, isByok: false, upstreamCostUsd: null, cachedTokens: 0,
};
