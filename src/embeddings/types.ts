/**
 * The validated POST /embeddings body, the plan and the answer of the embeddings service.
 * @module
 */
import type { NormalisedInput } from './input';
import type { CatalogModel, Endpoint } from '../catalog/types';
import type { CachePlan } from './cache/plan';
import type { ChunkedBody } from './response';
import type { Wire } from '../wire';

/** The validated body of POST /embeddings (schema `embeddings.create.body`). */
export type EmbeddingsBody = Wire<'embeddings.create.body'>;

/** What `EmbeddingsService.plan` decided before any spend is reserved. */
export interface EmbeddingsPlan {
  /** The catalog model id. */
  model: string;
  /** The catalog model (a final error is about it). */
  primary: CatalogModel;
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
