/**
 * Between the vectors of an answer and the entries of the cache: what an upstream vector is
 * stored as, and what a stored entry is answered as, so that a hit gives the client the very bytes
 * a miss gave it (float text as sent; base64 of the same float32 bytes).
 * @module
 */
import { endianness } from 'node:os';
import { RawVector } from '../../providers/raw-json';
import type { Vector } from '../../providers/types';
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
 * What to store for `v`: its float32 bytes, and the exact float text the client was (or would
 * have been) sent for it. A base64 string from the upstream has no float text; it is stored only
 * when its bytes re-encode to the very same string (else a hit could not reproduce it): null then.
 */
export function storedForm(v: Vector): { floats: Buffer; text: Buffer | null } | null {
  if (typeof v === 'string') {
    const floats = Buffer.from(v, 'base64');
    return floats.length > 0 && floats.length % 4 === 0 && floats.toString('base64') === v ? { floats, text: null } : null;
  }
  if (v instanceof RawVector) return { floats: float32Bytes(v.values()), text: Buffer.from(v.bytes) };
  return v.length > 0 ? { floats: float32Bytes(v), text: Buffer.from(JSON.stringify(v)) } : null;
}

/**
 * The vector to answer from `e` in `encoding`, or undefined when the entry cannot give that
 * encoding byte for byte (a float request on an entry that came from a base64 answer).
 */
export function answerFrom(e: CacheEntry, encoding: 'float' | 'base64'): Vector | undefined {
  if (encoding === 'base64') return e.floats.toString('base64');
  return e.text ? new RawVector(e.text) : undefined;
}
