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
  /**
   * @param length - how many numbers it holds (counted while validating it, so nothing parses it to know)
   */
  constructor(
    readonly bytes: Buffer,
    readonly length: number,
  ) {}

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
    if (c === 0x2d) c = b[++i]; // -
    else if (c !== undefined && c < 0x30) {
      // whitespace (all below '0'), allowed before the sign, not after it
      while (isSpace(c)) c = b[++i];
      if (c === 0x2d) c = b[++i];
    }
    digitsAt = i;
    if (c === 0x30) c = b[++i]; // a lone 0 (no leading zeros)
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

/**
 * Parse `body`, replacing the array value of every `"<key>": [...]` member by its ordinal (0, 1,
 * …) and returning the arrays as validated {@link RawVector}s. Returns undefined when the body is
 * not valid JSON or a lifted array is not a plain array of numbers. Values of `key` that are not
 * arrays (e.g. base64 strings) are left in place. Only the small remainder is decoded and parsed.
 */
export function parseLiftingArrays(body: Buffer, key: string): { body: unknown; raws: RawVector[] } | undefined {
  const needle = Buffer.from(`"${key}"`);
  const raws: RawVector[] = [];
  const counted: NumberCount = { count: 0 };
  let skeleton = '';
  let from = 0;
  // The next key is searched for after the vector just lifted (`from`), not inside its bytes again.
  for (let at = body.indexOf(needle); at !== -1; at = body.indexOf(needle, Math.max(at + needle.length, from))) {
    let i = at + needle.length;
    while (isSpace(body[i])) i++;
    if (body[i] !== COLON) continue;
    i++;
    while (isSpace(body[i])) i++;
    if (body[i] !== OPEN) continue;
    const end = numberArrayEnd(body, i, counted);
    if (end === -1) return undefined;
    skeleton += `${body.toString('utf8', from, i)}${raws.length}`;
    raws.push(new RawVector(body.subarray(i, end), counted.count));
    from = end;
  }
  const parsed = parseJson(raws.length === 0 ? body.toString('utf8') : skeleton + body.toString('utf8', from));
  return parsed === undefined ? undefined : { body: parsed, raws };
}
