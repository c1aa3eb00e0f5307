/**
 * Why RE2 refuses a tenant's pattern, in words the tenant can act on. Patterns used to be
 * JavaScript regular expressions; RE2 matches in linear time precisely because it has no
 * backreferences, lookaround, possessive quantifiers or atomic groups, so a refusal names the
 * construct rather than quoting the parser's generic "invalid escape sequence".
 * @module
 */
import { RE2JSSyntaxException } from 're2js';

/** The constructs a backtracking engine has and RE2 does not, by how RE2's parser reports them. */
const CONSTRUCTS: Array<{ error: RegExp; fragment: RegExp; name: string }> = [
  { error: /escape sequence/, fragment: /^\\[1-9]/, name: 'backreference' },
  { error: /escape sequence/, fragment: /^\\k/, name: 'named backreference' },
  { error: /Perl syntax|named capture/, fragment: /^\(\?=/, name: 'lookahead' },
  { error: /Perl syntax|named capture/, fragment: /^\(\?!/, name: 'negative lookahead' },
  { error: /Perl syntax|named capture/, fragment: /^\(\?<=/, name: 'lookbehind' },
  { error: /Perl syntax|named capture/, fragment: /^\(\?<!/, name: 'negative lookbehind' },
  { error: /Perl syntax/, fragment: /^\(\?>/, name: 'atomic group' },
  { error: /nested repetition/, fragment: /^(?:[*+?]|\{\d*,?\d*\})\+$/, name: 'possessive quantifier' },
];

/** The longest piece of a pattern quoted back. */
const MAX_QUOTED = 20;

/**
 * The message for `err`, thrown by RE2JS compiling `pattern` (case-insensitively, which RE2JS
 * does by prefixing `(?i)`: that prefix is not the tenant's and is not quoted back).
 */
export function describePatternError(pattern: string, err: unknown): string {
  if (!(err instanceof RE2JSSyntaxException)) return 'is not a valid regular expression';
  const description = err.getDescription();
  let fragment = err.getPattern() ?? '';
  if (fragment.startsWith('(?i)') && !pattern.startsWith('(?i)')) fragment = fragment.slice(4);
  const construct = CONSTRUCTS.find((c) => c.error.test(description) && c.fragment.test(fragment));
  if (construct) {
    const token = fragment.match(construct.fragment)![0];
    const article = /^[aeiou]/.test(construct.name) ? 'an' : 'a';
    return `uses ${article} ${construct.name} \`${token}\`, which RE2 (the linear-time engine patterns run on) does not support`;
  }
  if (/escape sequence/.test(description) && fragment.startsWith('\\u')) {
    return 'uses `\\u`: in RE2 syntax a code point is written \\x{…} (for example \\x{e9})';
  }
  return `is not a valid regular expression (RE2 syntax): ${description} \`${fragment.slice(0, MAX_QUOTED)}\``;
}
