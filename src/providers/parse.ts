/**
 * Small shared helpers for adapters: is this a vector, a count, an object; the vectors of an
 * OpenAI-style list; bearer headers; the texts of an input for wire formats that only take strings.
 * @module
 */
import type { EmbeddingInput } from './embeddings-types';
import { isFloat32 } from './vectors';

/**
 * True for a non-empty array of numbers float32 holds (an embedding). Every value is checked,
 * as the raw-JSON scanner checks lifted arrays: one value out of range (`1e39`, or `1e999` that
 * JSON.parse reads as Infinity) would reach the client as `null` or, in base64, as Infinity, and
 * would be cached. The body was parsed whole already, so this loop is small beside that.
 */
export function isVector(v: unknown): v is number[] {
  if (!Array.isArray(v) || v.length === 0) return false;
  for (const n of v) if (!isFloat32(n)) return false;
  return true;
}

/** A non-negative integer or null. */
export function countOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null;
}

/**
 * A usage count as an upstream reported it: null when absent, the number as sent (negative,
 * fractional or huge included), NaN for anything else. Whether it is believed is decided later
 * (`src/usage/bounds.ts`), so a bad count is replaced and marked rather than silently read as 0.
 */
export function reportedCount(v: unknown): number | null {
  if (v === undefined || v === null) return null;
  return typeof v === 'number' ? v : NaN;
}

/** A plain object or null. */
export function asObject(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/**
 * The vectors of an OpenAI-style list (`data: [{index, embedding}, …]`, as OpenAI and Voyage
 * send), placed by `index` (array position when absent). `pick` turns an item's `embedding`
 * member into a vector, undefined when it is not one. Null when `data` is not an array, an
 * embedding is not picked, or an index is out of range or repeated.
 */
export function vectorsByIndex<V>(data: unknown, pick: (embedding: unknown) => V | undefined): V[] | null {
  if (!Array.isArray(data)) return null;
  const vectors: V[] = new Array<V>(data.length);
  for (let i = 0; i < data.length; i++) {
    const item = asObject(data[i]);
    const index = typeof item?.index === 'number' ? item.index : i;
    const vector = pick(item?.embedding);
    if (vector === undefined || index < 0 || index >= vectors.length || vectors[index] !== undefined) return null;
    vectors[index] = vector;
  }
  return vectors;
}

/** Headers with a bearer token when the provider has a key. */
export function bearerHeaders(apiKey: string | null): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json' };
  if (apiKey) h.authorization = `Bearer ${apiKey}`;
  return h;
}

/**
 * The texts of a text or text-only multimodal input, for wire formats that take plain strings
 * (candidate selection never sends them token ids or non-text parts).
 */
export function textsOf(input: EmbeddingInput): string[] {
  if (input.kind === 'text') return input.texts;
  if (input.kind === 'multimodal') {
    return input.items.map((parts) =>
      parts
        .map((p) => (p.type === 'text' ? p.text : ''))
        .filter(Boolean)
        .join('\n'),
    );
  }
  throw new Error('token-id input reached a text-only wire format');
}
