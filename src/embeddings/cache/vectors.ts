/**
 * Between the vectors of an answer and the entries of the cache: what an upstream vector is
 * stored as, and what a stored entry is answered as, so that a hit gives the client the very bytes
 * a miss gave it (float text as sent; base64 of the same float32 bytes).
 * @module
 */
import { endianness } from 'node:os';
import { RawVector } from '../../providers/raw-json';
import type { Vector } from '../../providers/embeddings-types';
import { vectorLength } from '../../providers/vectors';
import type { CacheEntry } from './entry';

const LITTLE_ENDIAN = endianness() === 'LE';

/** Little-endian float32 bytes of `values` (the rounding `encoding_format: base64` applies). */
export function float32Bytes(values: readonly number[]): Buffer {
  const floats = Float32Array.from(values);
  const bytes = Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength);
  if (!LITTLE_ENDIAN) bytes.swap32();
  return bytes;
}

/**
 * What to store for `v`:
 * - the upstream's base64 (passed through): its float32 bytes, and only when they re-encode to
 *   the very same string (else a hit could not reproduce it: null then);
 * - raw float text from the upstream: that text only. It is what a float hit must repeat byte for
 *   byte, and float32 bytes derived from it would cost a parse of every vector on every write
 *   (about as much CPU as the rest of the request), for a base64 hit to save the same parse later;
 * - numbers the adapter already parsed: both the JSON the client is sent and the float32 bytes
 *   (cheap here).
 * Only vectors the adapters validated reach this (`providers/vectors.ts`: float32 values, one
 * length per answer), so an entry never holds NaN or a value base64 would turn into Infinity.
 * The buffers may be views into the upstream body: encode the entry at once, do not keep them.
 */
export function storedForm(v: Vector): { floats: Buffer | null; text: Buffer | null; length: number } | null {
  const length = vectorLength(v);
  if (typeof v === 'string') {
    const floats = Buffer.from(v, 'base64');
    return length > 0 && floats.length === length * 4 && floats.toString('base64') === v
      ? { floats, text: null, length }
      : null;
  }
  // A view into the upstream body, not a copy: the entry is encoded (copied) from it at once.
  if (v instanceof RawVector) return { floats: null, text: v.bytes, length };
  return length > 0 ? { floats: float32Bytes(v), text: Buffer.from(JSON.stringify(v)), length } : null;
}

/**
 * The vector to answer from `e` in `encoding`, or undefined when the entry cannot give that
 * encoding byte for byte (a float request on an entry that came from a base64 answer). A base64
 * answer from float text is encoded by the response builder, exactly as the uncached path does.
 */
export function answerFrom(e: CacheEntry, encoding: 'float' | 'base64'): Vector | undefined {
  if (encoding === 'base64') return e.floats ? e.floats.toString('base64') : new RawVector(e.text as Buffer, e.length);
  return e.text ? new RawVector(e.text, e.length) : undefined;
}
