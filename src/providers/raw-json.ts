/**
 * Cheap handling of upstream bodies on the hot path. Embedding vectors are the bulk of every
 * response (1536 floats ≈ 20 kB), and parsing them into numbers only to print them again costs
 * ~10× more than checking them. So adapters lift each vector array out of the body *bytes* as a
 * validated slice ({@link RawVector}, no copy, no UTF-8 decode), parse only the small rest, and
 * the response builder splices the slices back in unchanged.
 * @module
 */

/** A JSON array of numbers, kept as the upstream's bytes. */
export class RawVector {
  /** The bytes as written out: one buffer, or the pieces of chunks an array ran across. */
  readonly parts: readonly Buffer[];

  /**
   * @param bytes - the array's bytes, or its pieces in order
   * @param length - how many numbers it holds (counted while validating it, so nothing parses it to know)
   */
  constructor(
    bytes: Buffer | readonly Buffer[],
    readonly length: number,
  ) {
    this.parts = Buffer.isBuffer(bytes) ? [bytes] : bytes;
  }

  /** The array's bytes as one buffer (joined only for an array that ran across chunks). */
  get bytes(): Buffer {
    return this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
  }

  /** The numbers (only when something needs them, e.g. base64 output). */
  values(): number[] {
    return JSON.parse(this.bytes.toString('latin1')) as number[];
  }
}

/** JSON.parse that returns undefined instead of throwing. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const OPEN = 0x5b;
const CLOSE = 0x5d;
const COLON = 0x3a;

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Integer digits plus positive exponent from which a number may exceed the largest float32
 * (≈3.4e38): such a number is parsed to check it (below this, none can).
 */
const OVERFLOW_DIGITS = 39;

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

/**
 * Whether the four bytes of `w` are all ASCII digits (SWAR: per-byte range checks on one word).
 * A byte below `0` sets its high bit in `w - 0x30…` (and only then borrows from the byte above),
 * a byte above `9` sets it in `w + 0x46…` (a carry needs a byte ≥ 0xBA, which the first test
 * has already refused), so no borrow or carry can make a non-digit pass.
 */
function fourDigits(w: number): boolean {
  return ((w - 0x30303030) & 0x80808080) === 0 && ((w + 0x46464646) & 0x80808080) === 0;
}

/** Whether any of the eight bytes of `w1` then `w2` is not an ASCII digit ({@link fourDigits} on both at once). */
function eightDigits(w1: number, w2: number): boolean {
  return (((w1 - 0x30303030) | (w1 + 0x46464646) | (w2 - 0x30303030) | (w2 + 0x46464646)) & 0x80808080) === 0;
}

/** Where {@link numberArrayEnd} reports how many numbers the array it accepted holds. */
export interface NumberCount {
  count: number;
}

/**
 * If a non-empty JSON array of numbers (and nothing else) starts at `start` (`b[start]` is `[`),
 * the index just past its `]`; else -1. Strict RFC 8259 numbers, so the slice is always valid
 * JSON to splice into our own body: no strings, objects, `NaN` or leading zeros can get through.
 * `counted`, when given, receives the count of numbers.
 *
 * This runs over every byte of every vector (about 32 kB per 1536 floats), so it is one loop
 * carrying the current byte, ordered for the common case (`-0.0123…,` with no whitespace: the
 * comma is tested before the exponent and whitespace, and whitespace only where no sign came),
 * and the long fraction digit runs are skipped eight bytes at a time ({@link eightDigits}),
 * then four, then one, which measured faster than four at a time.
 * Reads past the end yield `undefined`, which no test below accepts.
 *
 * A number float32 cannot hold (`1e39`, and `1e999` that a double cannot hold either) is refused
 * too: base64 (float32) would carry it as ±Infinity, and a client's JSON parser reads the latter
 * as Infinity. Only a number whose integer digits plus positive exponent reach
 * {@link OVERFLOW_DIGITS} is parsed to check it, so ordinary vectors pay one comparison a number.
 */
export function numberArrayEnd(b: Buffer, start: number, counted?: NumberCount): number {
  const words = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const lastWords = b.length - 8;
  let i = start + 1;
  let c: number | undefined;
  let digitsAt = 0;
  let intDigits = 0;
  let count = 0;
  for (;;) {
    count++;
    c = b[i];
    if (c === 0x2d)
      c = b[++i]; // -
    else if (c !== undefined && c < 0x30) {
      // whitespace (all below '0'), allowed before the sign, not after it
      while (isSpace(c)) c = b[++i];
      if (c === 0x2d) c = b[++i];
    }
    digitsAt = i;
    if (c === 0x30)
      c = b[++i]; // a lone 0 (no leading zeros)
    else if (isDigit(c)) {
      do c = b[++i];
      while (isDigit(c));
    } else return -1;
    intDigits = i - digitsAt;
    if (c === 0x2e) {
      // . then at least one digit
      if (!isDigit(b[++i])) return -1;
      i++;
      while (i <= lastWords) {
        const w1 = words.getUint32(i, true);
        if (!eightDigits(w1, words.getUint32(i + 4, true))) {
          if (fourDigits(w1)) i += 4;
          break;
        }
        i += 8;
      }
      c = b[i];
      while (isDigit(c)) c = b[++i];
    }
    if (c === 0x2c && intDigits < OVERFLOW_DIGITS) {
      i++;
      continue;
    }
    let scale = intDigits;
    if (c === 0x65 || c === 0x45) {
      // e/E, an optional sign, at least one digit
      c = b[++i];
      let down = false;
      if (c === 0x2b || c === 0x2d) {
        down = c === 0x2d;
        c = b[++i];
      }
      if (!isDigit(c)) return -1;
      let exponent = 0;
      do {
        if (exponent < OVERFLOW_DIGITS) exponent = exponent * 10 + ((c as number) - 0x30);
        c = b[++i];
      } while (isDigit(c));
      if (!down) scale += exponent;
    }
    if (scale >= OVERFLOW_DIGITS && !Number.isFinite(Math.fround(Number(b.toString('latin1', digitsAt, i))))) return -1;
    while (isSpace(c)) c = b[++i];
    if (c === 0x2c) {
      i++;
      continue;
    }
    if (c !== 0x5d) return -1;
    if (counted) counted.count = count;
    return i + 1;
  }
}

/**
 * Hands out each lifted vector once: `claim(ordinal)` is the vector a parsed member points at,
 * or undefined when `ordinal` is not a lifted index or was claimed already. An upstream's own
 * number in that place (`"embedding": 0`) would otherwise pass for a pointer and duplicate
 * another item's vector.
 */
export function rawClaimer(raws: readonly RawVector[]): (ordinal: unknown) => RawVector | undefined {
  const claimed: boolean[] = [];
  return (ordinal) => {
    if (typeof ordinal !== 'number' || !Number.isInteger(ordinal) || claimed[ordinal] || ordinal < 0) return undefined;
    const raw = raws[ordinal];
    if (raw) claimed[ordinal] = true;
    return raw;
  };
}

/** An upstream body as the chunks it arrived in, or one buffer. */
export type BodyBytes = Buffer | readonly Buffer[];

/** The body as one buffer, joined only when it came in several chunks. */
export function wholeBody(body: BodyBytes): Buffer {
  if (Buffer.isBuffer(body)) return body;
  return body.length === 1 ? (body[0] as Buffer) : Buffer.concat(body);
}

/** What {@link parseLiftingArrays} returns: the parsed rest of the body and the lifted arrays. */
export interface Lifted {
  body: unknown;
  raws: RawVector[];
}

/**
 * Parse `body`, replacing the array value of every `"<key>": [...]` member by its ordinal (0, 1,
 * …) and returning the arrays as validated {@link RawVector}s. Returns undefined when the body is
 * not valid JSON or a lifted array is not a plain array of numbers. Values of `key` that are not
 * arrays (e.g. base64 strings) are left in place. Only the small remainder is decoded and parsed.
 *
 * A body in several chunks is read where it lies ({@link liftFromChunks}): joining a large
 * answer means a fresh buffer of its whole size for every request, whose first touch of each
 * page costs more than the copy. What that pass cannot decide within chunks is decided here on
 * the joined body, so both give the same answer.
 */
export function parseLiftingArrays(body: BodyBytes, key: string): Lifted | undefined {
  const needle = Buffer.from(`"${key}"`);
  const inChunks = Buffer.isBuffer(body) || body.length < 2 ? undefined : liftFromChunks(body, needle);
  return inChunks ?? liftFromOne(wholeBody(body), needle);
}

/**
 * After a key that ends at `i`: where the `[` of its array value is, -1 when its value is not an
 * array, or `b.length` when `b` ends before that is known. Reads stay within `b`.
 */
function arrayAfterKey(b: Buffer, i: number): number {
  while (i < b.length && isSpace(b[i])) i++;
  if (i === b.length) return i;
  if (b[i] !== COLON) return -1;
  i++;
  while (i < b.length && isSpace(b[i])) i++;
  if (i === b.length) return i;
  return b[i] === OPEN ? i : -1;
}

function liftFromOne(body: Buffer, needle: Buffer): Lifted | undefined {
  const raws: RawVector[] = [];
  const counted: NumberCount = { count: 0 };
  let skeleton = '';
  let from = 0;
  // The next key is searched for after the vector just lifted (`from`), not inside its bytes again.
  for (let at = body.indexOf(needle); at !== -1; at = body.indexOf(needle, Math.max(at + needle.length, from))) {
    const i = arrayAfterKey(body, at + needle.length);
    if (i === -1 || i === body.length) continue;
    const end = numberArrayEnd(body, i, counted);
    if (end === -1) return undefined;
    skeleton += `${body.toString('utf8', from, i)}${raws.length}`;
    raws.push(new RawVector(body.subarray(i, end), counted.count));
    from = end;
  }
  const parsed = parseJson(raws.length === 0 ? body.toString('utf8') : skeleton + body.toString('utf8', from));
  return parsed === undefined ? undefined : { body: parsed, raws };
}

/** Reused by {@link scratchCopy}: a fresh buffer per use would cost a first touch of every page. */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);
/** The most the scratch buffer grows to (a 3,072-float vector is about 65 kB); a longer array gets a buffer of its own. */
const SCRATCH_MAX = 1024 * 1024;

/**
 * `parts` copied one after another into the scratch buffer, as a view of it. The view is valid
 * until the next call: only for checking bytes at once, never to keep.
 */
function scratchCopy(parts: readonly Buffer[]): Buffer {
  let size = 0;
  for (const p of parts) size += p.length;
  if (size > SCRATCH_MAX) return Buffer.concat(parts, size);
  if (size > scratch.length)
    scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX, Math.max(size, scratch.length * 2)));
  let at = 0;
  for (const p of parts) at += p.copy(scratch, at);
  return scratch.subarray(0, size);
}

/** UTF-8 text of byte pieces that may split a character between them. */
function textOf(pieces: Buffer[]): string {
  return pieces.length === 1 ? (pieces[0] as Buffer).toString('utf8') : Buffer.concat(pieces).toString('utf8');
}

/** Whether `needle` could lie across a boundary between chunks (or a middle chunk is too short to tell). */
function keyMayCrossBoundary(chunks: readonly Buffer[], needle: Buffer): boolean {
  const n = needle.length - 1;
  for (let k = 0; k + 1 < chunks.length; k++) {
    const a = chunks[k] as Buffer;
    const b = chunks[k + 1] as Buffer;
    if (k > 0 && a.length < n) return true;
    if (Buffer.concat([a.subarray(Math.max(0, a.length - n)), b.subarray(0, n)]).indexOf(needle) !== -1) return true;
  }
  return false;
}

/**
 * {@link liftFromOne} over chunks without joining them: a vector inside one chunk stays a view
 * of it; a vector that runs across chunks is checked in scratch memory and kept as its pieces.
 * Returns undefined (the caller then joins the body) for anything it cannot decide within
 * chunks: a key or the `: [` after it cut by a boundary, or an array it refuses.
 */
function liftFromChunks(chunks: readonly Buffer[], needle: Buffer): Lifted | undefined {
  if (keyMayCrossBoundary(chunks, needle)) return undefined;
  const raws: RawVector[] = [];
  const counted: NumberCount = { count: 0 };
  /** The skeleton's bytes since the last lifted vector, across chunks. */
  const region: Buffer[] = [];
  let skeleton = '';
  let k = 0;
  let chunk = chunks[0] as Buffer;
  let from = 0;
  let searchAt = 0;
  for (;;) {
    const at = chunk.indexOf(needle, searchAt);
    if (at === -1) {
      region.push(chunk.subarray(from));
      if (++k === chunks.length) break;
      chunk = chunks[k] as Buffer;
      from = searchAt = 0;
      continue;
    }
    searchAt = at + needle.length;
    const i = arrayAfterKey(chunk, searchAt);
    if (i === chunk.length) return undefined;
    if (i === -1) continue;
    region.push(chunk.subarray(from, i));
    skeleton += `${textOf(region)}${raws.length}`;
    region.length = 0;
    // The scan runs only where a `]` ends it within the buffer: a read past a buffer's end would
    // make V8 drop its optimised code for the scanner (as a refused body does, rarely).
    let end = chunk.indexOf(CLOSE, i) + 1;
    if (end !== 0) {
      // Refused: the joined pass decides.
      if (numberArrayEnd(chunk, i, counted) !== end) return undefined;
      raws.push(new RawVector(chunk.subarray(i, end), counted.count));
    } else {
      const parts = [chunk.subarray(i)];
      do {
        if (++k === chunks.length) return undefined;
        chunk = chunks[k] as Buffer;
        end = chunk.indexOf(CLOSE) + 1;
        parts.push(end === 0 ? chunk : chunk.subarray(0, end));
      } while (end === 0);
      // Checked as one run of bytes in scratch memory, and kept as the chunks' pieces. One `]`, at its end.
      const bytes = scratchCopy(parts);
      if (numberArrayEnd(bytes, 0, counted) !== bytes.length) return undefined;
      raws.push(new RawVector(parts, counted.count));
    }
    from = searchAt = end;
  }
  const parsed = parseJson(skeleton + textOf(region));
  return parsed === undefined ? undefined : { body: parsed, raws };
}
