/**
 * The contract every provider adapter (one folder per wire format) implements: map our
 * normalised embeddings job to the upstream's request, and its response back to vectors and
 * token counts. Adapters are declarative data-plus-two-functions; HTTP, timeouts and error
 * classification live in `src/transport/` so every adapter gets them the same way.
 * @module
 */
import type { Endpoint } from '../catalog/types';
import type { BodyBytes, RawVector } from './raw-json';
import type { UpstreamErrorDetail, UpstreamRequest } from '../transport/outcome';

/** One part of a multimodal input item (the hosted service's ContentPart). */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'input_audio'; input_audio: { data: string; format?: string } }
  | { type: 'input_video'; input_video: { data: string; format?: string } }
  | { type: 'input_file'; input_file: { data: string; format?: string } };

/** The request's input in one of three normalised forms, one entry per output embedding. */
export type EmbeddingInput =
  | { kind: 'text'; texts: string[] }
  | { kind: 'tokens'; tokens: number[][] }
  | { kind: 'multimodal'; items: ContentPart[][] };

/** What an adapter needs to build the upstream request. */
export interface EmbeddingJob {
  input: EmbeddingInput;
  dimensions: number | undefined;
  inputType: string | undefined;
  user: string | undefined;
  /** The encoding the client asked for; an adapter may ask the upstream for it when it can pass it through. */
  encoding: 'float' | 'base64';
}

/**
 * Vectors in input order: raw JSON number arrays (spliced into the response as they came),
 * number arrays, or base64 strings when the upstream already produced the client's base64
 * encoding (passed through untouched).
 */
export type Vector = RawVector | number[] | string;

/** A mapped upstream success. */
export interface ParsedEmbeddings {
  vectors: Vector[];
  /** Prompt tokens reported by the upstream, as sent (see `reportedCount`); null when it reports none (we count them). */
  promptTokens: number | null;
  /** Images the upstream billed, when it says so (as sent). */
  imageCount: number | null;
  upstreamId: string | null;
}

/** One wire format. */
export interface EmbeddingsAdapter {
  readonly name: string;
  /** Build the HTTP request for `job` on `endpoint` with `key` (the key pool's pick; null when the provider has none). */
  buildRequest(job: EmbeddingJob, endpoint: Endpoint, key: string | null): UpstreamRequest;
  /** Sign a built request where the format signs each one (SigV4), adding its headers; it never sends. */
  authorize?(req: UpstreamRequest, endpoint: Endpoint, key: string | null): Promise<void>;
  /**
   * Most inputs one upstream call takes; larger requests are sent in chunks (see
   * `embeddings/batches.ts`). Omitted → no limit below the API's own 2048.
   */
  readonly maxBatch?: number;
  /** Map a 2xx body (raw bytes); null when it is not a valid embeddings response (→ 502). */
  parseResponse(body: BodyBytes, job: EmbeddingJob): ParsedEmbeddings | null;
  /**
   * Whether an error body signals overload (mapped to 529) although its status is not 529,
   * e.g. a 503 "model is overloaded". Optional; the default looks for "overload".
   */
  isOverloaded?(status: number, bodyText: string): boolean;
  /** A refusal the client should see, read from an error body (see `OverloadSignal.errorDetail`). */
  errorDetail?(status: number, bodyText: string): UpstreamErrorDetail | null;
}
