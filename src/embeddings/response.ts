/**
 * The POST /embeddings response body, assembled as bytes. Raw upstream vectors are spliced in
 * as the bytes they arrived as (no parse, no re-print, no UTF-8 round trip); base64 is produced
 * here unless the upstream already did it. Small fields go through JSON.stringify so they are
 * always escaped correctly.
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

function vectorJson(v: Vector, encoding: 'float' | 'base64'): Buffer | string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (encoding === 'base64') return JSON.stringify(toBase64Float32(v instanceof RawVector ? v.values() : v));
  return v instanceof RawVector ? v.bytes : JSON.stringify(v);
}

/** Serialise the response (`id`, `object:"list"`, `data[]`, `model`, `provider`, `usage`) into one buffer. */
export function embeddingsResponseBody(p: EmbeddingsResponseParts): Buffer {
  const parts: Buffer[] = [];
  let text = `{"id":${JSON.stringify(p.id)},"object":"list","data":[`;
  for (let i = 0; i < p.vectors.length; i++) {
    text += `${i > 0 ? ',' : ''}{"object":"embedding","embedding":`;
    const v = vectorJson(p.vectors[i] as Vector, p.encoding);
    if (typeof v === 'string') text += v;
    else {
      parts.push(Buffer.from(text), v);
      text = '';
    }
    text += `,"index":${i}}`;
  }
  const usage = JSON.stringify({ prompt_tokens: p.promptTokens, total_tokens: p.promptTokens, cost: p.cost, is_byok: false });
  parts.push(Buffer.from(`${text}],"model":${JSON.stringify(p.model)},"provider":${JSON.stringify(p.providerName)},"usage":${usage}}`));
  return Buffer.concat(parts);
}
