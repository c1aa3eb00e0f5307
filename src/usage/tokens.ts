/**
 * Token counting for when an upstream omits `usage`, so cost is never a silent 0. Uses
 * gpt-tokenizer's `cl100k_base` (the encoding of OpenAI's embeddings models; a close estimate for
 * other providers' BPE vocabularies). The encoder is loaded lazily on first use (~40 MB, ~90 ms),
 * so a gateway whose upstreams always report usage never pays for it.
 *
 * Counting is bounded in time and memory for any input, because it runs on whatever a client or
 * an upstream sent: the text is walked once, without regular expressions, and handed to the
 * encoder in pieces of at most {@link CHUNK} code units.
 * @module
 */
import type { countTokens as CountFn } from 'gpt-tokenizer/encoding/cl100k_base';

/**
 * BPE merging is quadratic in the length of one pre-tokenised piece, so a long run without
 * whitespace (`"aaaa…"`, base64 blobs), or of whitespace alone, would cost seconds of CPU. Runs of
 * at least this many code units are counted in slices of {@link SLICE}; the count of a sliced run
 * is within a token or so per slice of the exact figure, and still grows with the input.
 */
const LONG_RUN = 65;
const SLICE = 48;
/**
 * Ordinary text (no long run) goes to the encoder in pieces of about this many code units, cut
 * only where cl100k's pre-tokeniser would cut anyway, so the count is the same as in one piece.
 */
const CHUNK = 16_384;

/** Text that names a special token (`<|endoftext|>`) is counted as the plain text it is, never refused. */
const PLAIN = { disallowedSpecial: new Set<string>() };

let encoder: typeof CountFn | undefined;

function count(text: string): number {
  // Loaded on first use; require keeps the import lazy under CommonJS.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  encoder ??= (require('gpt-tokenizer/encoding/cl100k_base') as { countTokens: typeof CountFn }).countTokens;
  return encoder(text, PLAIN);
}

/** Whether code unit `c` is whitespace as JavaScript's `\s` (and so the encoder's pattern) sees it. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isNewline(c: number): boolean {
  return c === 0x0a || c === 0x0d;
}

/** Count `text[start, end)` in slices of about {@link SLICE} code units, never inside a surrogate pair. */
function countSliced(text: string, start: number, end: number): number {
  let total = 0;
  while (start < end) {
    let stop = Math.min(start + SLICE, end);
    const code = text.charCodeAt(stop - 1);
    if (stop < end && code >= 0xd800 && code <= 0xdbff) stop += 1;
    total += count(text.slice(start, stop));
    start = stop;
  }
  return total;
}

/**
 * Where ordinary text may be cut before the whitespace run `text[start, end)` that follows a
 * non-whitespace character, with the count unchanged: before the run when it begins with a
 * space or tab (no pre-token joins a word to the space after it), else just after its last
 * newline (a newline ends its pre-token).
 */
function cutIn(text: string, start: number, end: number): number {
  if (!isNewline(text.charCodeAt(start))) return start;
  let cut = end;
  while (!isNewline(text.charCodeAt(cut - 1))) cut--;
  return cut;
}

/**
 * Tokens of one text: ordinary text in pieces of about {@link CHUNK}, cut where the pre-tokeniser
 * cuts; runs (of whitespace, or of anything else) of {@link LONG_RUN} or more counted slice by slice.
 */
function countText(text: string): number {
  const n = text.length;
  let total = 0;
  /** Start of the ordinary text not yet counted. */
  let from = 0;
  let at = 0;
  while (at < n) {
    const space = isSpace(text.charCodeAt(at));
    let end = at + 1;
    while (end < n && isSpace(text.charCodeAt(end)) === space) end++;
    if (end - at >= LONG_RUN) {
      if (at > from) total += count(text.slice(from, at));
      total += countSliced(text, at, end);
      from = end;
    } else if (space && at > from && end < n && at - from >= CHUNK) {
      const cut = cutIn(text, at, end);
      total += count(text.slice(from, cut));
      from = cut;
    }
    at = end;
  }
  if (from < n) total += count(text.slice(from));
  return total;
}

/**
 * Count the tokens of texts (cl100k_base): the gateway's own count of a prompt or an answer. An
 * input that is not empty counts at least one token, so a priced call never costs exactly 0.
 * Never throws, and its work grows linearly with the input.
 * @param texts - the text inputs (token-id inputs are counted by their length by the caller)
 * @returns the total token count over every text
 * @example countTokens(['hello world']) // 2
 */
export function countTokens(texts: string[]): number {
  let total = 0;
  for (const text of texts) {
    if (text.length === 0) continue;
    total += Math.max(1, countText(text));
  }
  return total;
}
