/**
 * The usage record of one chat call: everything analytics, the rankings datasets (modalities,
 * tool calls, prompt size for `context_bucket`) and GET /generation read about it.
 * @module
 */
import type { Endpoint } from '../catalog/types';
import type { CallerContext } from '../inference/caller';
import { modelVariant } from '../embeddings/ids';
import type { ChatUsage, FinishReason } from '../providers/chat-types';
import type { UsageEvent } from '../usage/types';
import type { DoorApi } from '../inference/door';

/** How a chat call went, as the service saw it. */
export interface ChatOutcome {
  id: string;
  endpoint: Endpoint;
  usage: ChatUsage;
  cost: number;
  /** The gateway counted the tokens (no usage from the upstream, or a cut stream). */
  estimated: boolean;
  streamed: boolean;
  finishReason: FinishReason | null;
  nativeFinishReason: string | null;
  toolCalls: number;
  upstreamId: string | null;
  /** Since the request arrived: until the first content (streams) or the answer, and until the end. */
  ttftMs: number | null;
  totalMs: number;
  /** The upstream's share: from the successful attempt's start to its last byte. */
  generationMs: number;
  attempts: number;
  modalityLabel: string;
  /** `error` when the stream broke after it started (its tokens are still charged). */
  status: 'ok' | 'error';
}

/** Which door answered, the end user and session its body named, and the routing variant of the model name it served. */
export interface AskedBy {
  api: DoorApi;
  endUser: string | null;
  sessionId: string | undefined;
  /** `nitro` for `x:nitro` (the record's model is `x`); null without one. */
  routingVariant?: string | null;
}

/** Build the usage event of `o` for the caller `ctx`. */
export function chatUsageEvent(o: ChatOutcome, ctx: CallerContext, who: AskedBy, createdAt: Date): UsageEvent {
  return {
    id: o.id,
    createdAt,
    orgId: ctx.key.orgId,
    workspaceId: ctx.key.workspaceId,
    keyHash: ctx.key.hash,
    endUser: who.endUser,
    sessionId: who.sessionId ?? ctx.sessionHeader,
    apiType: who.api,
    model: o.endpoint.modelId,
    provider: o.endpoint.provider.name,
    upstreamId: o.upstreamId,
    tokensPrompt: o.usage.promptTokens,
    tokensCompletion: o.usage.completionTokens,
    costUsd: o.cost,
    latencyMs: Math.round(o.totalMs),
    generationTimeMs: Math.round(o.generationMs),
    attempts: o.attempts,
    status: o.status,
    inputModality: o.modalityLabel,
    userAgent: ctx.userAgent,
    httpReferer: ctx.httpReferer,
    appTitle: ctx.appTitle,
    origin: ctx.origin,
    finishReason: o.finishReason,
    variant: who.routingVariant ?? modelVariant(o.endpoint.modelId),
    outputModality: 'text',
    toolCalls: o.toolCalls,
    isByok: false,
    upstreamCostUsd: o.cost,
    cachedTokens: o.usage.cacheReadTokens,
    streamed: o.streamed,
    timeToFirstTokenMs: o.ttftMs === null ? null : Math.round(o.ttftMs),
    nativeFinishReason: o.nativeFinishReason,
    usageEstimated: o.estimated,
    cacheWriteTokens: o.usage.cacheWriteTokens,
    reasoningTokens: o.usage.reasoningTokens,
    wildcardPriced: o.endpoint.wildcard !== undefined,
  };
}
