/**
 * What the gateway's middleware attach to Express requests, typed once for every handler.
 */
import type { ApiKeyRecord } from '../keys/types';
import type { EmbeddingsPlan } from '../embeddings/types';
import type { ChatPlan } from '../chat/plan';
import type { Context } from '@opentelemetry/api';

declare global {
  namespace Express {
    interface Request {
      /** Set by `requestContext` before anything else runs. */
      ctx: {
        requestId: string;
        /** `process.hrtime.bigint()` at arrival. */
        startedAt: bigint;
        /** Route template for logs/metrics (`/api/v1/keys/:hash`), `unmatched` until a route matches. */
        route: string;
        /** The authenticated key, once `authenticate` has run. */
        key?: ApiKeyRecord;
        /** The OpenTelemetry context holding the request's server span; only with tracing on. */
        trace?: Context;
      };
      /** Validated (and defaulted/coerced) inputs, set by `validate`. */
      valid: { body?: unknown; query?: unknown; params?: unknown };
    }
    interface Locals {
      /** The embeddings request's plan (model, candidates, estimate), set before the budget step. */
      embeddingsPlan?: EmbeddingsPlan;
      /** The chat request's plan (models, candidates, worst case), set before the budget step. */
      chatPlan?: ChatPlan;
      /**
       * Spend of a priced request: `estimateUsd` (set before the budget step) is reserved, and
       * `actualUsd` (set by the handler once the upstream answered) settles it; unset → released.
       */
      spend?: {
        estimateUsd: number;
        actualUsd?: number;
        /** Added to a 402's message: what the client can change so that the request fits (chat: set max_tokens). */
        refusalHint?: string;
      };
    }
  }
}

export {};
