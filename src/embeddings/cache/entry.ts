/**
 * One cached vector as stored: a small fixed header, the producing endpoint, and the vector as
 * little-endian float32 bytes (what base64 answers are made of) and/or the exact JSON text of
 * the vector the client was sent in a float answer. Float answers are spliced from the upstream's
 * own digits (`providers/raw-json.ts`), which float32 cannot reproduce byte for byte (an upstream
 * may print 17 significant digits, or 9, or exponents), so a float answer's entry keeps that text
 * (see `vectors.ts` for which form each answer stores). A CRC-32 over the whole entry turns any
 * damage (truncation, a foreign value, a bit flip) into a miss.
 * @module
 */
import { crc32 } from 'node:zlib';

/**
 * "SYE2" read as a little-endian uint32. Version 2 records the vector's length with every entry
 * and is written only for validated vectors; version 1 entries (whose vectors were not all
 * checked) are not read, so they are misses and get replaced.
 */
const MAGIC = 0x32455953;
const HEADER = 32;
const HAS_TEXT = 1;
const HAS_FLOATS = 2;

/** What an entry holds. */
export interface CacheEntry {
  /** The endpoint (`<provider>:<model>`) whose upstream produced the vector. */
  endpointId: string;
  /** When it stops being served (ms since the epoch, the gateway's clock). */
  expiresAt: number;
  /** How many values the vector holds (an answer never mixes lengths). */
  length: number;
  /** The prompt tokens attributed to this input when it was embedded (billed once, saved on every hit). */
  tokens: number;
  /** Images in this input (priced per image on some endpoints). */
  images: number;
  /** The vector, little-endian float32 (4 × `length` bytes), when stored. */
  floats: Buffer | null;
  /** The JSON array text the client got for `encoding_format: float`, when stored. */
  text: Buffer | null;
}

/**
 * Serialise an entry (a copy: `e`'s buffers are not kept).
 * @param checksum - compute the CRC; an in-process store, which never verifies it, writes 0
 */
export function encodeEntry(e: CacheEntry, checksum = true): Buffer {
  const id = Buffer.from(e.endpointId, 'utf8');
  const textLength = e.text?.length ?? 0;
  const floatsLength = e.floats?.length ?? 0;
  const out = Buffer.allocUnsafe(HEADER + id.length + floatsLength + textLength + 4);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt8((e.text ? HAS_TEXT : 0) | (e.floats ? HAS_FLOATS : 0), 4);
  out.writeUInt8(0, 5);
  out.writeUInt16LE(id.length, 6);
  out.writeDoubleLE(e.expiresAt, 8);
  out.writeUInt32LE(e.tokens, 16);
  out.writeUInt32LE(e.images, 20);
  out.writeUInt32LE(e.length, 24);
  out.writeUInt32LE(textLength, 28);
  let at = HEADER;
  at += id.copy(out, at);
  if (e.floats) at += e.floats.copy(out, at);
  if (e.text) at += e.text.copy(out, at);
  out.writeUInt32LE(checksum ? crc32(out.subarray(0, at)) : 0, at);
  return out;
}

/**
 * Read an entry back; null when it is not a well-formed entry of this version (damaged, cut
 * short, or not ours). The buffers returned are views into `b` (no copy).
 * @param verify - check the CRC too; an in-process store, whose bytes never leave the process,
 *   skips it (it is most of a hit's cost), keeping the structural checks
 */
export function decodeEntry(b: Buffer, verify = true): CacheEntry | null {
  if (b.length < HEADER + 4 || b.readUInt32LE(0) !== MAGIC) return null;
  const flags = b.readUInt8(4);
  const idLength = b.readUInt16LE(6);
  const length = b.readUInt32LE(24);
  const textLength = b.readUInt32LE(28);
  const hasText = (flags & HAS_TEXT) !== 0;
  const hasFloats = (flags & HAS_FLOATS) !== 0;
  const floatsLength = hasFloats ? length * 4 : 0;
  const end = HEADER + idLength + floatsLength + textLength;
  if (end + 4 !== b.length || length === 0 || hasText !== textLength > 0 || !(hasText || hasFloats)) return null;
  if (verify && crc32(b.subarray(0, end)) !== b.readUInt32LE(end)) return null;
  const floatsAt = HEADER + idLength;
  const textAt = floatsAt + floatsLength;
  return {
    endpointId: b.toString('utf8', HEADER, floatsAt),
    expiresAt: b.readDoubleLE(8),
    length,
    tokens: b.readUInt32LE(16),
    images: b.readUInt32LE(20),
    floats: hasFloats ? b.subarray(floatsAt, textAt) : null,
    text: hasText ? b.subarray(textAt, end) : null,
  };
}
