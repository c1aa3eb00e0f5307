/**
 * What makes an upstream vector valid, whichever form it came in: every value a number that
 * float32 holds (a client asking for base64 gets float32, and the cache serves both encodings from
 * one entry, so a finite double such as `1e39` that float32 turns into Infinity is as invalid as
 * NaN), and every vector of one answer the same length. An answer failing this is an invalid
 * upstream body: the next provider is tried, else the client gets a 502, and nothing is cached.
 * @module
 */
import type { Vector } from './embeddings-types';

/** Whether `n` is a number that float32 holds (finite once rounded to float32). */
export function isFloat32(n: unknown): n is number {
  return typeof n === 'number' && Number.isFinite(Math.fround(n));
}

/**
 * The number of float32 values in an upstream's base64 vector, or -1 when it is not a valid one:
 * not canonical base64 (which would not re-encode to itself, so a client could decode it
 * differently), empty, not whole float32 values, or holding NaN or ±Infinity.
 */
export function base64Length(text: string): number {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length === 0 || bytes.length % 4 !== 0 || bytes.toString('base64') !== text) return -1;
  for (let at = 0; at < bytes.length; at += 4) if (!Number.isFinite(bytes.readFloatLE(at))) return -1;
  return bytes.length / 4;
}

/** How many values `v` holds (a base64 vector is assumed valid, see {@link base64Length}). */
export function vectorLength(v: Vector): number {
  if (typeof v === 'string') return (Buffer.byteLength(v, 'base64') / 4) | 0;
  return v.length;
}

/** The length every vector of `vectors` has, or -1 when they differ (or there are none). */
export function commonLength(vectors: readonly Vector[]): number {
  if (vectors.length === 0) return -1;
  const n = vectorLength(vectors[0] as Vector);
  for (let i = 1; i < vectors.length; i++) if (vectorLength(vectors[i] as Vector) !== n) return -1;
  return n;
}
