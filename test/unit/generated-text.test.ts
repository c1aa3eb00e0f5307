/**
 * Issue 61 item 5: a stream keeps a bounded summary of what it generated, never every chunk, and
 * the gateway's own count of a long answer still covers all of it.
 */
import fc from 'fast-check';
import { GeneratedText, MAX_KEPT_CHARS } from '../../src/providers/generated-text';
import { OpenAIChatStream } from '../../src/providers/openai/chat-stream';
import { countTokens } from '../../src/usage/tokens';

test('under the cap every part is kept and counted exactly', () => {
  const g = new GeneratedText();
  g.add('hello there ');
  g.add('my friend');
  expect(g.keptParts).toEqual(['hello there ', 'my friend']);
  expect(g.tokens(countTokens)).toBe(countTokens(['hello there my friend']));
});

test('past the cap the rest is only counted, and the count scales to the whole', () => {
  const g = new GeneratedText();
  const piece = 'lorem ipsum dolor sit amet '.repeat(400); // 10,800 characters
  const n = Math.ceil((4 * MAX_KEPT_CHARS) / piece.length);
  for (let i = 0; i < n; i++) g.add(piece);
  const keptChars = g.keptParts.reduce((sum, p) => sum + p.length, 0);
  expect(keptChars).toBeLessThan(MAX_KEPT_CHARS + piece.length);
  expect(g.keptShare).toBeCloseTo(keptChars / (n * piece.length), 9);
  const exact = countTokens([piece]) * n;
  expect(g.tokens(countTokens)).toBeGreaterThanOrEqual(exact * 0.99);
  expect(g.tokens(countTokens)).toBeLessThanOrEqual(exact * 1.01);
});

test('an OpenAI stream of 4 × the cap keeps a bounded summary; its count without usage covers the whole', () => {
  const s = new OpenAIChatStream({ id: 'gen-1', model: 'm', provider: 'P', created: 1 });
  const word = 'token '.repeat(1000);
  const chunk = (content: string) =>
    Buffer.from(`data: ${JSON.stringify({ id: 'up', model: 'm', choices: [{ index: 0, delta: { content } }] })}\n\n`);
  const n = Math.ceil((4 * MAX_KEPT_CHARS) / word.length);
  for (let i = 0; i < n; i++) s.push(chunk(word));
  s.push(Buffer.from('data: [DONE]\n\n'));
  const exact = countTokens([word]) * n;
  const counted = s.summary().generatedTokens();
  expect(counted).toBeGreaterThanOrEqual(exact * 0.98);
  expect(counted).toBeLessThanOrEqual(exact * 1.05);
});

test("an OpenAI stream's metered bound is at least its text's UTF-8 bytes, and no looser than the deltas' literals", () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 12 });
  const delta = fc.oneof(
    text.map((content) => ({ content })),
    fc.record({ content: text, reasoning: text }),
    fc.record({
      tool_calls: fc.tuple(fc.record({ index: fc.constant(0), function: fc.record({ name: text, arguments: text }) })),
    }),
  );
  fc.assert(
    fc.property(fc.array(delta, { minLength: 1, maxLength: 8 }), fc.boolean(), (deltas, spaced) => {
      const s = new OpenAIChatStream({ id: 'gen-1', model: 'm', provider: 'P', created: 1 });
      let exact = 0;
      let literals = 0;
      for (const d of deltas) {
        const value = { id: 'up', model: 'm', choices: [{ index: 0, delta: d, finish_reason: null }] };
        // Blanks between members, on one line (a data line holds no line break; a string's is escaped).
        const json = spaced ? JSON.stringify(value, null, 1).replace(/\n\s*/g, ' ') : JSON.stringify(value);
        s.push(Buffer.from(`data: ${json}\n\n`));
        const strings =
          'tool_calls' in d ? [d.tool_calls[0].function.name, d.tool_calls[0].function.arguments] : Object.values(d);
        for (const t of strings) {
          exact += Buffer.byteLength(t);
          literals += Buffer.byteLength(JSON.stringify(t));
        }
      }
      const bound = s.generatedBound();
      expect(bound).toBeGreaterThanOrEqual(exact);
      expect(bound).toBeLessThanOrEqual(literals);
    }),
    { numRuns: 300 },
  );
});
