/**
 * Token counting for when an upstream omits `usage`, so cost is never a silent 0. Uses
 * gpt-tokenizer's `cl100k_base` (the encoding of OpenAI's embeddings models; a close estimate for
 * other providers' BPE vocabularies). The encoder is loaded lazily on first use (~40 MB, ~90 ms),
 * so a gateway whose upstreams always report usage never pays for it.
 * @module
 */
import type { countTokens as CountFn } from 'gpt-tokenizer/encoding/cl100k_base';

/**
 * BPE merging is quadratic in the length of one pre-tokenised piece, so a long run without
 * whitespace (`"aaaa…"`, base64 blobs) would cost seconds of CPU. Runs longer than this are
 * counted in slices of {@link SLICE}; the count of a sliced run is within a token or so per
 * slice of the exact figure, and still grows with the input.
 */
const LONG_RUN = /\S{65,}/g;
const SLICE = 48;

let encoder: typeof CountFn | undefined;

function count(text: string): number {
  // Loaded on first use; require keeps the import lazy under CommonJS.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  encoder ??= (require('gpt-tokenizer/encoding/cl100k_base') as { countTokens: typeof CountFn }).countTokens;
  return encoder(text);
}

/** Cut `run` into slices of about {@link SLICE} code units, never inside a surrogate pair. */
function countLongRun(run: string): number {
  let total = 0;
  for (let start = 0; start < run.length; ) {
    let end = Math.min(start + SLICE, run.length);
    const code = run.charCodeAt(end - 1);
    if (end < run.length && code >= 0xd800 && code <= 0xdbff) end += 1;
    total += count(run.slice(start, end));
    start = end;
  }
  return total;
}

/** Tokens of one text, with long whitespace-free runs counted slice by slice. */
function countText(text: string): number {
  if (text.length === 0) return 0;
  let total = 0;
  let last = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    const at = match.index;
    if (at > last) total += count(text.slice(last, at));
    total += countLongRun(match[0]);
    last = at + match[0].length;
  }
  if (last < text.length) total += count(text.slice(last));
  return total;
}

/**
 * Count the prompt tokens of embedding inputs (cl100k_base). An input that is not empty counts
 * at least one token, so a priced call never costs exactly 0.
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
