/**
 * Cheap handling of upstream bodies on the hot path. Embedding vectors are the bulk of every
 * response (1536 floats ≈ 20 kB of text), and parsing them into numbers only to print them again
 * costs ~10× more than checking them. So adapters lift each vector array out of the text as a
 * validated raw JSON slice ({@link RawVector}), parse only the small rest, and the response
 * builder splices the slices back in unchanged.
 * @module
 */

/** A JSON array of numbers, kept as the upstream's text. */
export class RawVector {
  constructor(readonly json: string) {}

  /** The numbers (only when something needs them, e.g. base64 output). */
  values(): number[] {
    return JSON.parse(this.json) as number[];
  }
}

const NUM = '-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?';
/** A non-empty JSON array of numbers and nothing else: safe to splice into our own JSON. */
const NUMBER_ARRAY = new RegExp(`^\\[\\s*${NUM}(?:\\s*,\\s*${NUM})*\\s*\\]$`);

/** JSON.parse that returns undefined instead of throwing. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Parse `text`, replacing the array value of every `"<key>": [...]` member by its ordinal (0, 1, …)
 * and returning the arrays as validated {@link RawVector}s. Returns undefined when the text is not
 * valid JSON or a lifted array is not a plain array of numbers. Values of `key` that are not
 * arrays (e.g. base64 strings) are left in place.
 */
export function parseLiftingArrays(text: string, key: string): { body: unknown; raws: RawVector[] } | undefined {
  const needle = `"${key}"`;
  const raws: RawVector[] = [];
  let skeleton = '';
  let from = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    let i = at + needle.length;
    while (isSpace(text.charCodeAt(i))) i++;
    if (text[i] !== ':') continue;
    i++;
    while (isSpace(text.charCodeAt(i))) i++;
    if (text[i] !== '[') continue;
    // Arrays of numbers hold no nested brackets or strings, so the first `]` closes them.
    const end = text.indexOf(']', i);
    if (end === -1) return undefined;
    const slice = text.slice(i, end + 1);
    if (!NUMBER_ARRAY.test(slice)) return undefined;
    skeleton += `${text.slice(from, i)}${raws.length}`;
    raws.push(new RawVector(slice));
    from = end + 1;
  }
  const body = parseJson(raws.length === 0 ? text : skeleton + text.slice(from));
  return body === undefined ? undefined : { body, raws };
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}
