/**
 * Token counting used when an upstream omits usage: real cl100k_base counts, never 0 for a
 * non-empty input, and bounded work on pathological inputs (long runs without whitespace).
 */
import { countTokens as encodeWhole } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens } from '../../src/usage/tokens';

describe('countTokens', () => {
  test('counts cl100k_base tokens of ordinary text', () => {
    expect(countTokens(['hello world'])).toBe(2);
    expect(countTokens(['The quick brown fox jumps over the lazy dog.'])).toBe(10);
  });

  test('sums over every input and ignores empty strings', () => {
    expect(countTokens(['hello world', 'hello world', ''])).toBe(4);
    expect(countTokens([])).toBe(0);
    expect(countTokens([''])).toBe(0);
  });

  test('a non-empty input is at least one token', () => {
    expect(countTokens([' '])).toBeGreaterThanOrEqual(1);
    expect(countTokens(['a'])).toBe(1);
  });

  test('counts non-Latin text (multi-byte characters) above zero and near the exact figure', () => {
    const n = countTokens(['日本語のテキストを埋め込みます。']);
    expect(n).toBeGreaterThan(5);
    expect(n).toBeLessThan(40);
  });

  test('long runs without whitespace are counted in slices, close to the exact count', () => {
    // 'a' * 8 is one cl100k token, so an exact count of 4,000 'a' is 500.
    const n = countTokens(['a'.repeat(4000)]);
    expect(n).toBeGreaterThanOrEqual(500);
    expect(n).toBeLessThanOrEqual(600);
  });

  test('a megabyte-sized whitespace-free input is counted and grows with its length', () => {
    const small = countTokens(['ab12'.repeat(1000)]);
    const big = countTokens(['ab12'.repeat(100_000)]);
    expect(big).toBeGreaterThan(small * 90);
  });

  test('surrogate pairs at slice boundaries are not split into garbage counts', () => {
    const emoji = '😀'.repeat(200); // 400 UTF-16 code units, no whitespace
    const n = countTokens([emoji]);
    expect(n).toBeGreaterThanOrEqual(200);
    expect(n).toBeLessThan(1000);
  });
});

describe('countTokens on any input', () => {
  test('8 M characters without whitespace are counted, not a RangeError', () => {
    // 'a' * 8 is one cl100k token; slices of 48 make 6 tokens each.
    expect(countTokens(['a'.repeat(8_000_000)])).toBe(1_000_000);
  });

  test('8 M characters of whitespace alone are counted in slices too', () => {
    const n = countTokens([' '.repeat(8_000_000)]);
    expect(n).toBeGreaterThan(8_000_000 / 64);
    expect(n).toBeLessThan(8_000_000 / 4);
  });

  test('text naming a special token is counted as text, not refused', () => {
    expect(countTokens(['hi <|endoftext|> there'])).toBe(8);
  });

  test('ordinary text longer than one piece counts exactly as the encoder counts it whole', () => {
    const line = (i: number) =>
      `Line ${i}: the fox's ${i % 7 === 0 ? 'JSON {"a": [1, 2]}' : 'reply'}, “quoted” 日本語.\n${i % 3 === 0 ? '    indented();\n' : ''}${i % 5 === 0 ? '\n\n' : ''}`;
    const text = Array.from({ length: 6000 }, (_, i) => line(i)).join('');
    expect(text.length).toBeGreaterThan(100_000);
    const whole = encodeWhole(text);
    expect(countTokens([text])).toBe(whole);
  });
});
