/**
 * Who is calling an inference operation: read once from the request (src/http/caller.ts) and
 * carried through the plan, the attempts and the usage record of every operation and door.
 * @module
 */
import type { Context } from '@opentelemetry/api';
import type { ApiKeyRecord } from '../keys/types';

/** Who is calling, from the request context and headers. */
export interface CallerContext {
  key: ApiKeyRecord;
  requestId: string;
  /** `process.hrtime.bigint()` when the request arrived (gateway overhead = total − upstream). */
  startedAt: bigint;
  /** `x-session-id` header; the body's `session_id` wins. */
  sessionHeader: string | null;
  userAgent: string | null;
  httpReferer: string | null;
  appTitle: string | null;
  /** `Origin` header (a browser app's origin). */
  origin: string | null;
  /** The request's trace context (its server span), with tracing on: upstream attempts and the usage write are its children. */
  trace?: Context;
}
