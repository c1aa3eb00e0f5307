/**
 * The bytes of an inference request's JSON body as the client sent them (after any
 * Content-Encoding, UTF-8), kept beside the parsed body. A coding agent's turn is tens to hundreds
 * of KB, nearly all of it `messages` and `tools`, which the gateway passes on unchanged; copying
 * those members' bytes into the upstream body costs a scan for their bounds, where
 * `JSON.stringify` would serialise every value again (about twice the cost of parsing it) and
 * the socket would encode the text to UTF-8 once more.
 *
 * The bytes describe the body as parsed. Code that changes a parsed body in place (a file part's
 * `file_id` replaced by its content) calls {@link forgetRawJson} first, so nothing stale is sent.
 *
 * Once the upstream body holds those members, {@link releaseRawMembers} lets the parsed ones go:
 * a request's parsed turn would otherwise live while the upstream answers, long enough to be
 * copied by young-generation collections and promoted, where the bytes lie outside the heap.
 * @module
 */

/** A kept body: its bytes, and its top-level members' bounds once a member was asked for. */
interface RawJson {
  bytes: Buffer;
  spans?: Map<string, readonly [start: number, end: number]>;
}

const kept = new WeakMap<object, RawJson>();

/** Keep `bytes` as the source of `body` (the value `JSON.parse` made of them). */
export function keepRawJson(body: unknown, bytes: Buffer): void {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) kept.set(body, { bytes });
}

/** `body` is about to change in place: its bytes no longer describe it. */
export function forgetRawJson(body: object): void {
  kept.delete(body);
}

/**
 * The bytes of `body`'s top-level member `name` as sent (a view, not a copy), or undefined when
 * the body has no bytes kept or no such member. With a name given twice, the last, as `JSON.parse` takes it.
 */
export function rawMember(body: object, name: string): Buffer | undefined {
  const raw = kept.get(body);
  if (!raw) return undefined;
  raw.spans ??= memberSpans(raw.bytes);
  const span = raw.spans.get(name);
  return span && raw.bytes.subarray(span[0], span[1]);
}

/** Members shorter than this stay parsed: they hold little, and a later read of them costs nothing. */
const RELEASE_MIN_BYTES = 4096;

const asData = (body: object, name: string, value: unknown) =>
  Object.defineProperty(body, name, { value, writable: true, enumerable: true, configurable: true });

/**
 * Drop `body`'s large parsed members (those with kept bytes): each becomes an accessor that parses
 * its bytes again on first read (a fallback attempt, an exact count) and is then a plain member
 * once more, and assigning one replaces it. Nothing happens to a body with no bytes kept.
 */
export function releaseRawMembers(body: object): void {
  const raw = kept.get(body);
  if (!raw) return;
  raw.spans ??= memberSpans(raw.bytes);
  for (const [name, [start, end]] of raw.spans) {
    if (end - start < RELEASE_MIN_BYTES) continue;
    const member = Object.getOwnPropertyDescriptor(body, name);
    if (!member || !('value' in member)) continue;
    Object.defineProperty(body, name, {
      enumerable: true,
      configurable: true,
      get() {
        const value: unknown = JSON.parse(raw.bytes.toString('utf8', start, end));
        asData(body, name, value);
        return value;
      },
      set(value: unknown) {
        asData(body, name, value);
      },
    });
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;

/** The index just past the string whose opening quote is at `i` (the bytes are valid JSON). */
function stringEnd(bytes: Buffer, i: number): number {
  for (let q = bytes.indexOf(QUOTE, i + 1); q !== -1; q = bytes.indexOf(QUOTE, q + 1)) {
    let slashes = 0;
    while (bytes[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
  }
  return bytes.length;
}

/** The index just past the value starting at `i` (a primitive's bound is the next `,` or `}`). */
function valueEnd(bytes: Buffer, i: number): number {
  let depth = 0;
  for (; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      i = stringEnd(bytes, i) - 1;
      if (depth === 0) return i + 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) return i;
      if (--depth === 0) return i + 1;
    } else if (c === COMMA && depth === 0) return i;
  }
  return i;
}

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * The bounds of each top-level member's value in `bytes`, a JSON object `JSON.parse` accepted
 * (so the scan needs no error handling): strings are skipped with `indexOf`, only the bytes
 * between them are read one by one. On bytes that are no JSON object it still ends, with bounds
 * that mean nothing.
 */
export function memberSpans(bytes: Buffer): Map<string, readonly [number, number]> {
  const spans = new Map<string, readonly [number, number]>();
  let i = bytes.indexOf(0x7b) + 1;
  for (;;) {
    const keyStart = bytes.indexOf(QUOTE, i);
    if (keyStart === -1) return spans;
    const keyEnd = stringEnd(bytes, keyStart);
    const key = bytes.subarray(keyStart, keyEnd).includes(BACKSLASH)
      ? (JSON.parse(bytes.toString('utf8', keyStart, keyEnd)) as string)
      : bytes.toString('utf8', keyStart + 1, keyEnd - 1);
    let start = bytes.indexOf(COLON, keyEnd) + 1;
    while (isSpace(bytes[start])) start++;
    let end = valueEnd(bytes, start);
    spans.set(key, [start, end]);
    while (isSpace(bytes[end])) end++;
    if (bytes[end] !== COMMA) return spans;
    i = end + 1;
  }
}
