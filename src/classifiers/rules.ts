/**
 * Classifier rules: checked when a classifier is created or changed, and compiled into matchers
 * that tag a text. Patterns run on RE2 (re2js, pure JavaScript), whose matching time is linear in
 * the text whatever the pattern, so alternation or nested quantifiers under a star cannot
 * backtrack catastrophically; what RE2 cannot express (backreferences, lookaround) is refused by
 * name. Linear is not free (a large program stepped along an 8 KB text, times many patterns), so
 * matching still runs on a worker thread with a deadline (`matcher.ts`), never on the event loop.
 * @module
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { RE2JS } from 're2js';
import type { ValidationIssue } from '../errors';
import { CLASSIFIER_LIMITS, type ClassifierDimension } from './types';
import { inputTexts } from '../embeddings/input';
import { describePatternError } from './pattern-syntax';

/** Patterns match case-insensitively (with Unicode case folding), as they did as JavaScript `iu` regular expressions. */
const PATTERN_FLAGS = RE2JS.CASE_INSENSITIVE;

/** How long checking patterns may hold the event loop before it lets other work run. */
const CHECK_SLICE_MS = 10;

/**
 * Problems with `dimensions` (the schema has checked shapes and sizes): patterns and unique names.
 * RE2 builds a program for each pattern (costly for Unicode classes with case folding), and a
 * classifier may hold thousands, so the check yields to the event loop every
 * {@link CHECK_SLICE_MS}: other requests go on while a large classifier is checked.
 */
export async function checkDimensions(
  dimensions: ClassifierDimension[],
  path = 'body.dimensions',
): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  const names = new Set<string>();
  let slice = performance.now();
  for (const [i, d] of dimensions.entries()) {
    if (names.has(d.name)) issues.push({ path: `${path}.${i}.name`, message: `dimension "${d.name}" is listed twice` });
    names.add(d.name);
    for (const [j, r] of d.rules.entries()) {
      if ((r.keywords?.length ?? 0) + (r.patterns?.length ?? 0) === 0) {
        issues.push({ path: `${path}.${i}.rules.${j}`, message: 'needs at least one keyword or pattern' });
      }
      for (const [k, pattern] of (r.patterns ?? []).entries()) {
        const problem = patternProblem(pattern);
        if (problem) issues.push({ path: `${path}.${i}.rules.${j}.patterns.${k}`, message: problem });
        if (performance.now() - slice >= CHECK_SLICE_MS) {
          await nextTurn();
          slice = performance.now();
        }
      }
    }
  }
  return issues;
}

/** Why `pattern` is refused, or null. */
export function patternProblem(pattern: string): string | null {
  if (pattern.length > CLASSIFIER_LIMITS.patternChars)
    return `must be at most ${CLASSIFIER_LIMITS.patternChars} characters`;
  try {
    RE2JS.compile(pattern, PATTERN_FLAGS);
  } catch (err) {
    return describePatternError(pattern, err);
  }
  return null;
}

/** A dimension ready to tag texts. */
export interface CompiledDimension {
  name: string;
  rules: Array<{ value: string; keywords: string[]; patterns: RE2JS[] }>;
}

/**
 * Compile dimensions (keywords lower-cased, patterns case-insensitive). A stored pattern RE2
 * cannot compile (one saved when patterns were JavaScript regular expressions) is left out: it
 * never matches, and the rest of its classifier still tags, rather than the text failing.
 */
export function compileDimensions(dimensions: ClassifierDimension[]): CompiledDimension[] {
  return dimensions.map((d) => ({
    name: d.name,
    rules: d.rules.map((r) => ({
      value: r.value,
      keywords: (r.keywords ?? []).map((k) => k.toLowerCase()),
      patterns: (r.patterns ?? []).flatMap((p) => {
        try {
          return [RE2JS.compile(p, PATTERN_FLAGS)];
        } catch {
          return [];
        }
      }),
    })),
  }));
}

/** Each dimension's tag for `text`: the first rule with a matching keyword or pattern, else null. */
export function tagText(dimensions: CompiledDimension[], text: string): Array<{ name: string; value: string | null }> {
  const lower = text.toLowerCase();
  return dimensions.map((d) => {
    const rule = d.rules.find((r) => r.keywords.some((k) => lower.includes(k)) || r.patterns.some((p) => p.test(text)));
    return { name: d.name, value: rule ? rule.value : null };
  });
}

/**
 * The text of an embeddings `input` a classifier looks at: strings (joined by newlines) and the
 * text parts of multimodal input, cut at {@link CLASSIFIER_LIMITS.inputBytes} bytes of UTF-8
 * (about; cut by characters, never mid-pair). Token-id input has no text.
 */
export function inputText(input: unknown, maxBytes = CLASSIFIER_LIMITS.inputBytes): string {
  const parts: string[] = [];
  let size = 0;
  const push = (s: string) => {
    if (size >= maxBytes) return;
    const room = maxBytes - size;
    const piece = Buffer.byteLength(s) <= room ? s : cutUtf8(s, room);
    parts.push(piece);
    size += Buffer.byteLength(piece) + 1;
  };
  for (const text of inputTexts(input)) {
    push(text);
    if (size >= maxBytes) break;
  }
  return parts.join('\n');
}

function cutUtf8(s: string, bytes: number): string {
  const buf = Buffer.from(s.slice(0, bytes));
  let end = Math.min(bytes, buf.length);
  // Back up to a character boundary (not a UTF-8 continuation byte).
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}
