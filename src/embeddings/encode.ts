/**
 * `encoding_format: base64`: the vector as little-endian float32 bytes, base64-encoded, which is
 * what the OpenAI SDK (that asks for base64 by default) decodes.
 * @module
 */
import { endianness } from 'node:os';

const LITTLE_ENDIAN = endianness() === 'LE';

/** Encode one vector. */
export function toBase64Float32(vector: readonly number[]): string {
  const floats = Float32Array.from(vector);
  if (!LITTLE_ENDIAN) {
    const view = new DataView(floats.buffer);
    for (let i = 0; i < floats.length; i++) view.setFloat32(i * 4, vector[i] as number, true);
  }
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}

/** Decode (tests and tools): base64 little-endian float32 → numbers. */
export function fromBase64Float32(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: number[] = new Array(bytes.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
