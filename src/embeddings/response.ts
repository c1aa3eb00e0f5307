/**
 * The POST /embeddings response body, assembled as a list of byte chunks that are written to the
 * socket as they are. Raw upstream vectors are passed on as the very bytes they arrived in (no
 * parse, no re-print, no UTF-8 round trip, and no copy into one body buffer, whose external
 * memory would drive V8 into frequent full collections). base64 is produced here
 * unless the upstream already did it. Small fields go through JSON.stringify so they are always
 * escaped correctly.
 * @module
 */
import { RawVector } from '../providers/raw-json';
import type { Vector } from '../providers/embeddings-types';
import { toBase64Float32 } from './encode';

/** Everything the response body holds. */
export interface EmbeddingsResponseParts {
  id: string;
  model: string;
  providerName: string;
  vectors: Vector[];
  encoding: 'float' | 'base64';
  /** Prompt tokens of the whole input, cached ones included. */
  promptTokens: number;
  /** What the upstream billed (USD); 0 when every input came from the cache. */
  cost: number;
  /** Tokens answered from the cache (`prompt_tokens_details.cached_tokens`); omitted when the cache was off. */
  cachedTokens?: number;
  /** Every input came from the cache (`usage.cached: true`, so a cost of 0 is never silent). */
  cached?: boolean;
}

/** A body as chunks to write in order; `length` is their total size in bytes (Content-Length). */
export interface ChunkedBody {
  chunks: Buffer[];
  length: number;
  /** The generation id the body carries (the usage record's id), for work after the answer. */
  id?: string;
}

function vectorJson(v: Vector, encoding: 'float' | 'base64'): readonly Buffer[] | string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (encoding === 'base64') return JSON.stringify(toBase64Float32(v instanceof RawVector ? v.values() : v));
  return v instanceof RawVector ? v.parts : JSON.stringify(v);
}

/** Serialise the response (`id`, `object:"list"`, `data[]`, `model`, `provider`, `usage`) as chunks. */
export function embeddingsResponseBody(p: EmbeddingsResponseParts): ChunkedBody {
  const chunks: Buffer[] = [];
  let length = 0;
  const push = (chunk: Buffer): void => {
    chunks.push(chunk);
    length += chunk.length;
  };
  let text = `{"id":${JSON.stringify(p.id)},"object":"list","data":[`;
  for (let i = 0; i < p.vectors.length; i++) {
    text += `${i > 0 ? ',' : ''}{"object":"embedding","embedding":`;
    const v = vectorJson(p.vectors[i] as Vector, p.encoding);
    if (typeof v === 'string') text += v;
    else {
      push(Buffer.from(text));
      for (const part of v) push(part);
      text = '';
    }
    text += `,"index":${i}}`;
  }
  const usage = JSON.stringify({
    prompt_tokens: p.promptTokens,
    total_tokens: p.promptTokens,
    cost: p.cost,
    is_byok: false,
    ...(p.cachedTokens === undefined ? {} : { prompt_tokens_details: { cached_tokens: p.cachedTokens } }),
    ...(p.cached ? { cached: true } : {}),
  });
  push(
    Buffer.from(
      `${text}],"model":${JSON.stringify(p.model)},"provider":${JSON.stringify(p.providerName)},"usage":${usage}}`,
    ),
  );
  return { chunks, length, id: p.id };
}
