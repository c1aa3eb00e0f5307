/**
 * The POST /embeddings response body, written as one string. Raw upstream vectors are spliced
 * in as they arrived (no parse, no re-print); base64 is produced here unless the upstream already
 * did it. Small fields go through JSON.stringify so they are always escaped correctly.
 * @module
 */
import { RawVector } from '../providers/raw-json';
import type { Vector } from '../providers/types';
import { toBase64Float32 } from './encode';

/** Everything the response body holds. */
export interface EmbeddingsResponseParts {
  id: string;
  model: string;
  providerName: string;
  vectors: Vector[];
  encoding: 'float' | 'base64';
  promptTokens: number;
  cost: number;
}

function vectorJson(v: Vector, encoding: 'float' | 'base64'): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (encoding === 'base64') return JSON.stringify(toBase64Float32(v instanceof RawVector ? v.values() : v));
  return v instanceof RawVector ? v.json : JSON.stringify(v);
}

/** Serialise the response (`id`, `object:"list"`, `data[]`, `model`, `provider`, `usage`). */
export function embeddingsResponseJson(p: EmbeddingsResponseParts): string {
  let data = '';
  for (let i = 0; i < p.vectors.length; i++) {
    if (i > 0) data += ',';
    data += `{"object":"embedding","embedding":${vectorJson(p.vectors[i] as Vector, p.encoding)},"index":${i}}`;
  }
  const usage = JSON.stringify({ prompt_tokens: p.promptTokens, total_tokens: p.promptTokens, cost: p.cost, is_byok: false });
  return `{"id":${JSON.stringify(p.id)},"object":"list","data":[${data}],"model":${JSON.stringify(p.model)},"provider":${JSON.stringify(p.providerName)},"usage":${usage}}`;
}
