/**
 * `encoding_format: base64`: the vector as little-endian float32 bytes, base64-encoded, which is
 * what the OpenAI SDK (that asks for base64 by default) decodes.
 * @module
 */
import { endianness } from 'node:os';

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * Scratch space for the float32 bytes, reused by every call (the encoding is synchronous, so no
 * two calls share it at once). A fresh Float32Array per vector is an allocation outside V8's heap
 * (6 kB for 1536 floats), and such external memory makes V8 collect garbage far more often.
 */
let scratch = new Float32Array(4096);

/** Encode one vector. */
export function toBase64Float32(vector: readonly number[]): string {
  if (scratch.length < vector.length) scratch = new Float32Array(Math.max(vector.length, scratch.length * 2));
  const n = vector.length;
  if (LITTLE_ENDIAN) scratch.set(vector);
  else {
    const view = new DataView(scratch.buffer);
    for (let i = 0; i < n; i++) view.setFloat32(i * 4, vector[i] as number, true);
  }
  return Buffer.from(scratch.buffer, 0, n * 4).toString('base64');
}

/** Decode (tests and tools): base64 little-endian float32 → numbers. */
export function fromBase64Float32(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Array<number>(bytes.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
