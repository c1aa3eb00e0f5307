/**
 * The usage record of one embeddings call: what analytics, the rankings datasets and
 * GET /generation read about it, cache savings included.
 * @module
 */
import type { Endpoint } from '../catalog/types';
import type { UsageEvent } from '../usage/types';
import { modelVariant } from './ids';
import type { CallerContext } from '../inference/caller';
import type { EmbeddingsBody } from './types';

/** How an embeddings call went, as the service saw it. */
export interface EmbeddingsOutcome {
  id: string;
  ctx: CallerContext;
  body: EmbeddingsBody;
  model: string;
  endpoint: Endpoint;
  /** Prompt tokens of the whole input, cached ones included. */
  tokens: number;
  cachedTokens: number;
  /** What the cache saved (USD). */
  savedUsd: number;
  /** What the upstream billed (USD). */
  cost: number;
  totalMs: number;
  upstreamMs: number;
  attempts: number;
  modalityLabel: string;
  upstreamId: string | null;
  /** The token count is the gateway's (the upstream's was missing or out of bounds); absent → false. */
  estimated?: boolean;
}

/** Build the usage event of `r`. */
export function embeddingsUsageEvent(r: EmbeddingsOutcome, createdAt: Date): UsageEvent {
  return {
    id: r.id,
    createdAt,
    orgId: r.ctx.key.orgId,
    workspaceId: r.ctx.key.workspaceId,
    keyHash: r.ctx.key.hash,
    endUser: r.body.user ?? null,
    sessionId: r.body.session_id ?? r.ctx.sessionHeader,
    apiType: 'embeddings',
    model: r.model,
    provider: r.endpoint.provider.name,
    upstreamId: r.upstreamId,
    tokensPrompt: r.tokens,
    tokensCompletion: 0,
    costUsd: r.cost,
    latencyMs: Math.round(r.totalMs),
    generationTimeMs: Math.round(r.upstreamMs),
    attempts: r.attempts,
    status: 'ok',
    inputModality: r.modalityLabel,
    userAgent: r.ctx.userAgent,
    httpReferer: r.ctx.httpReferer,
    appTitle: r.ctx.appTitle,
    origin: r.ctx.origin,
    finishReason: null,
    variant: modelVariant(r.model),
    outputModality: 'embeddings',
    toolCalls: 0,
    isByok: false,
    upstreamCostUsd: r.cost,
    cachedTokens: r.cachedTokens,
    cacheSavedUsd: r.cachedTokens > 0 ? r.savedUsd : null,
    usageEstimated: r.estimated === true,
  };
}
