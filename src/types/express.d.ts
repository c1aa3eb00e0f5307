/**
 * What the gateway's middleware attach to Express requests, typed once for every handler.
 */
import type { ApiKeyRecord } from '../keys/types';
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
  }
}

export {};
