/**
 * The usage event: one per inference call, written durably through the outbox into the
 * `generations` table. It is the system of record for spend, key usage and analytics.
 * @module
 */

/** One usage record; field names follow the `generations` columns. */
export interface UsageEvent {
  /** `gen-emb-…` / `gen-…` (chat): `<unix seconds>-<20 alnum>`; the idempotency key of the outbox. */
  id: string;
  createdAt: Date;
  orgId: string;
  workspaceId: string;
  keyHash: string;
  /** The request's `user` field (end user), if any. */
  endUser: string | null;
  sessionId: string | null;
  apiType: 'embeddings' | 'completions' | 'chat' | 'messages' | 'responses';
  model: string;
  provider: string | null;
  upstreamId: string | null;
  tokensPrompt: number;
  tokensCompletion: number;
  costUsd: number;
  latencyMs: number | null;
  generationTimeMs: number | null;
  attempts: number;
  status: 'ok' | 'error';
  inputModality: string | null;
  userAgent: string | null;
  httpReferer: string | null;
  appTitle: string | null;
  /** The request's `Origin` header (a browser app's origin), if any. */
  origin: string | null;
  /** Why the upstream stopped; null for embeddings, which have no finish. */
  finishReason: string | null;
  /** The model variant: the routing variant the client named (`nitro`), else the id's `:suffix` (`free`), if any. */
  variant: string | null;
  /** What the answer was: `embeddings` for an embeddings call, `text` for a completion. */
  outputModality: string | null;
  /** Tool calls in the answer (0 for embeddings). */
  toolCalls: number;
  /** Whether the upstream call was billed to the caller's own provider key. */
  isByok: boolean;
  /** What the upstream billed in USD, when known. */
  upstreamCostUsd: number | null;
  /** Prompt tokens answered from a cache instead of the upstream. */
  cachedTokens: number;
  /** What the cache saved (USD at the hits' endpoint prices); absent when it answered nothing. */
  cacheSavedUsd?: number | null;
  /** Chat: whether the answer was streamed (SSE). Absent → false. */
  streamed?: boolean;
  /** Chat: ms from the request's arrival to the first content chunk sent (streams) or to the answer (otherwise). */
  timeToFirstTokenMs?: number | null;
  /** Chat: the upstream's own finish reason, before normalising to `finishReason`. */
  nativeFinishReason?: string | null;
  /** Some token count is the gateway's: the upstream sent none (or a stream was cut), or one out of bounds (`src/usage/bounds.ts`). */
  usageEstimated?: boolean;
  /** Chat: prompt tokens written to the provider's prompt cache. */
  cacheWriteTokens?: number;
  /** Chat: completion tokens spent on reasoning. */
  reasoningTokens?: number;
  /** Chat: a model the catalog does not list, priced by its provider wildcard's default (`config/providers.yaml`). Absent → false. */
  wildcardPriced?: boolean;
}

/** Accepts usage events; durable once `record` resolves (or queued in-process when embedded). */
export interface UsageRecorder {
  record(event: UsageEvent): Promise<void>;
  /**
   * Events accepted but perhaps not yet in the database (a snapshot; some may already be written
   * as well). A budget counter rebuilt from the usage table adds these, so a counter Redis lost
   * is never rebuilt short of what was spent in the last flush interval.
   */
  pending(): Promise<UsageEvent[]>;
  /** Write everything pending now (shutdown, tests). */
  flush(): Promise<void>;
  close(): Promise<void>;
}
