/**
 * Which kind of UTF-8 text a file is: JSON, NDJSON, CSV, Markdown or plain text. Text has no
 * magic number, so this is a documented heuristic over the sniff window:
 *
 * 1. Not text at all (invalid UTF-8, or control characters other than tab, line feed, form
 *    feed and carriage return) → null, and the upload is refused.
 * 2. Starts with `{` or `[`: the whole file parses → `application/json`; two or more lines that
 *    each parse → `application/x-ndjson`; too long to parse in the window but opening the way
 *    JSON does → `application/json`; otherwise on to the next rules.
 * 3. At least two distinct kinds of Markdown markup (headings, lists, fences, quotes, links,
 *    emphasis, tables) → `text/markdown`.
 * 4. Two or more lines with the same number (≥ 2) of comma- or semicolon-separated fields
 *    (quotes respected) → `text/csv`.
 * 5. Otherwise `text/plain`, or `text/markdown` when the file name ends in `.md`/`.markdown`
 *    (the only place a name counts: prose with no markup looks the same either way).
 * @module
 */
import type { MediaType } from './sniff';

// eslint-disable-next-line no-control-regex -- control characters are exactly what marks binary
const CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/;

/** Decode strictly; an incomplete character at the end of a partial window is not an error. */
function decodeUtf8(head: Uint8Array, complete: boolean): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: !complete });
  } catch {
    return null;
  }
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** How a JSON document can begin (so a Markdown file opening with `[link](…)` is not taken for one). */
const JSON_START = /^\s*(\{\s*["}]|\[\s*([[{"\d\]-]|true|false|null))/;

/** JSON or NDJSON, or null when text that starts with a bracket is neither. */
function jsonKind(text: string, lines: string[], complete: boolean): MediaType | null {
  if (complete && parses(text)) return 'application/json';
  if (lines.length >= 2 && lines.every(parses)) return 'application/x-ndjson';
  return !complete && JSON_START.test(text) ? 'application/json' : null;
}

const MARKDOWN: ReadonlyArray<RegExp> = [
  /^#{1,6}\s+\S/, // ATX heading
  /^(```|~~~)/, // fenced code
  /^\s{0,3}([-*+]|\d{1,9}[.)])\s+\S/, // list item
  /^>\s?\S/, // block quote
  /!?\[[^\]\n]+\]\([^)\s]+\)/, // link or image
  /(\*\*|__)\S[^\n]*?\S\1/, // strong emphasis
  /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$/, // table delimiter row
];

function looksLikeMarkdown(lines: string[]): boolean {
  const kinds = new Set<number>();
  for (const line of lines) {
    MARKDOWN.forEach((re, i) => {
      if (re.test(line)) kinds.add(i);
    });
    if (kinds.size >= 2) return true;
  }
  return false;
}

/** Number of fields in one CSV line split on `delimiter`, or -1 when its quotes do not balance. */
function fieldCount(line: string, delimiter: string): number {
  let count = 1;
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === delimiter && !quoted) count++;
  }
  return quoted ? -1 : count;
}

function looksLikeCsv(lines: string[]): boolean {
  if (lines.length < 2) return false;
  const sample = lines.slice(0, 100);
  return [',', ';'].some((d) => {
    const first = fieldCount(sample[0] as string, d);
    return first >= 2 && sample.every((l) => fieldCount(l, d) === first);
  });
}

/**
 * Classify the sniff window as one of the text media types.
 * @param head - the first bytes of the file
 * @param complete - whether `head` is the whole file
 * @param filename - tie-breaker for Markdown prose only (rule 5)
 * @returns the text media type, or null when the bytes are not text
 */
export function classifyText(head: Uint8Array, complete: boolean, filename: string): MediaType | null {
  const text = decodeUtf8(head, complete);
  if (text === null || CONTROL.test(text)) return null;
  const all = text.split(/\r?\n/);
  // In a partial window the last line may be cut short: judge complete lines only.
  if (!complete && all.length > 1) all.pop();
  const lines = all.filter((l) => l.trim() !== '');
  const json = /^\s*[[{]/.test(text) ? jsonKind(text, lines, complete) : null;
  if (json) return json;
  if (looksLikeMarkdown(lines)) return 'text/markdown';
  if (looksLikeCsv(lines)) return 'text/csv';
  return /\.(md|markdown)$/i.test(filename) ? 'text/markdown' : 'text/plain';
}
