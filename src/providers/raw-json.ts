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
  constructor(readonly bytes: Buffer) {}

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

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const COMMA = 0x2c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const COLON = 0x3a;

function isSpace(c: number): boolean {
  return c === SPACE || c === LF || c === CR || c === TAB;
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

/** Index after the digits starting at `i` (which must be at least one digit), or -1. */
function digits(b: Buffer, i: number, end: number): number {
  if (i >= end || !isDigit(b[i] as number)) return -1;
  do i++;
  while (i < end && isDigit(b[i] as number));
  return i;
}

/** Index after the RFC 8259 number starting at `i`, or -1 when there is none. */
function number(b: Buffer, i: number, end: number): number {
  if (b[i] === MINUS) i++;
  if (b[i] === ZERO) i++;
  else if ((i = digits(b, i, end)) === -1) return -1;
  if (b[i] === DOT && (i = digits(b, i + 1, end)) === -1) return -1;
  const e = b[i];
  if (e === 0x65 || e === 0x45) {
    i++;
    if (b[i] === PLUS || b[i] === MINUS) i++;
    i = digits(b, i, end);
  }
  return i;
}

/**
 * If a non-empty JSON array of numbers (and nothing else) starts at `start` (`b[start]` is `[`),
 * the index just past its `]`; else -1. Strict RFC 8259 numbers, so the slice is always valid
 * JSON to splice into our own body: no strings, objects, `NaN` or leading zeros can get through.
 */
export function numberArrayEnd(b: Buffer, start: number): number {
  const end = b.length;
  let i = start + 1;
  for (;;) {
    while (i < end && isSpace(b[i] as number)) i++;
    i = number(b, i, end);
    if (i === -1) return -1;
    while (i < end && isSpace(b[i] as number)) i++;
    const c = b[i];
    if (c === CLOSE) return i + 1;
    if (c !== COMMA) return -1;
    i++;
  }
}

/**
 * The lifted vector a parsed member points at, claiming it: undefined when `ordinal` is not an
 * unclaimed lifted index. An upstream's own number in that place (`"embedding": 0`) would
 * otherwise pass for a pointer and duplicate another item's vector.
 */
export function claimRaw(raws: readonly RawVector[], claimed: boolean[], ordinal: unknown): RawVector | undefined {
  if (typeof ordinal !== 'number' || !Number.isInteger(ordinal) || claimed[ordinal] || ordinal < 0) return undefined;
  const raw = raws[ordinal];
  if (raw) claimed[ordinal] = true;
  return raw;
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
  let skeleton = '';
  let from = 0;
  for (let at = body.indexOf(needle); at !== -1; at = body.indexOf(needle, at + needle.length)) {
    let i = at + needle.length;
    while (isSpace(body[i] as number)) i++;
    if (body[i] !== COLON) continue;
    i++;
    while (isSpace(body[i] as number)) i++;
    if (body[i] !== OPEN) continue;
    const end = numberArrayEnd(body, i);
    if (end === -1) return undefined;
    skeleton += `${body.toString('utf8', from, i)}${raws.length}`;
    raws.push(new RawVector(body.subarray(i, end)));
    from = end;
  }
  const parsed = parseJson(raws.length === 0 ? body.toString('utf8') : skeleton + body.toString('utf8', from));
  return parsed === undefined ? undefined : { body: parsed, raws };
}
