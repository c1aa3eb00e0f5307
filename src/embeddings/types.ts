/**
 * The validated POST /embeddings body and the caller context the service needs.
 * @module
 */
import type { ApiKeyRecord } from '../keys/types';
import type { NormalisedInput } from './input';
import type { Endpoint } from '../catalog/types';
import type { CachePlan } from './cache/plan';
import type { ChunkedBody } from './response';
import type { Context } from '@opentelemetry/api';
import type { Wire } from '../wire';

/** The validated body of POST /embeddings (schema `embeddings.create.body`). */
export type EmbeddingsBody = Wire<'embeddings.create.body'>;

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

/** What `EmbeddingsService.plan` decided before any spend is reserved. */
export interface EmbeddingsPlan {
  /** The catalog model id. */
  model: string;
  norm: NormalisedInput;
  /** Endpoints that may serve the request, in the order they are tried. */
  candidates: Endpoint[];
  /** The most the request can cost on any candidate (USD): what the budget step reserves. */
  estimateUsd: number;
  /** The whole input's modality label (usage records), whatever part of it goes upstream. */
  modalityLabel: string;
  /** The cache lookup, when the cache is on for the request; `norm` and `estimateUsd` then cover the misses only. */
  cache?: CachePlan;
}

/** What `EmbeddingsService.create` answers. */
export interface EmbeddingsAnswer {
  body: ChunkedBody;
  /** What the upstream billed (USD): the budget step settles to it. */
  costUsd: number;
  /** The request's prompt tokens as charged (cached ones included): the usage record's figure. */
  promptTokens: number;
  /** `X-Switchyard-Cache` when the cache was on for the request. */
  cacheStatus?: 'HIT' | 'MISS' | 'PARTIAL';
  /** Stores the misses' vectors; run once the answer has been sent. */
  afterSend?: () => void;
  /** Settles once the usage record is durable (never rejects; a failed record is logged). */
  recorded: Promise<void>;
}
