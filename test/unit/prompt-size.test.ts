/**
 * A prompt's size bound (src/chat/prompt-size.ts): never below the exact count, whatever the
 * JSON it carries holds (escapes, numbers, nesting, non-ASCII keys), and sized from the JSON
 * values themselves, so a tools array is not serialised to be sized; the exact count is made on
 * demand from a reread of the prompt.
 */
import { promptTokens } from '../../src/chat/prompt-size';
import { countTokens } from '../../src/usage/tokens';

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file.\nLines are numbered; "quotes" and \\ backslashes\tand tabs.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Relative path — ünïcödé, 日本語, emoji 🚀' },
          offset: { type: 'integer', minimum: -1.234567890123456e-300, maximum: 1e21 },
          flags: { type: 'array', items: [true, false, null, 0, 'x\u0001y'] },
        },
        required: ['path'],
      },
    },
  },
];

test('the bound is at least the exact count, for texts and for JSON with escapes, numbers and non-ASCII', () => {
  const size = promptTokens({ texts: ['You are a coding agent.', 'éé 🚀'], values: [TOOLS, { schema: { n: 1 } }] }, 9);
  expect(size.tokens).toBeGreaterThan(9);
  expect(size.tokenBound).toBeGreaterThanOrEqual(size.tokens);
});

test("JSON is counted by its texts (keys, strings, numbers), as many tokens as those texts' count plus its members", () => {
  const value = { name: 'grep', args: ['-n', 42] };
  const size = promptTokens({ texts: [], values: [value] }, 0);
  // Members and items: the object, name, args, and args' two items (5 in all), 2 tokens each.
  expect(size.tokens).toBe(countTokens(['name', 'grep', 'args', '-n', '42']) + 5 * 2);
  // Without values the count is the texts' alone.
  expect(promptTokens({ texts: ['hello world'], values: [] }, 3).tokens).toBe(countTokens(['hello world']) + 3);
});

test('the bound grows with the JSON as its text does, not by a multiple of it', () => {
  const big = Array.from({ length: 200 }, (_, i) => ({ name: `tool_${i}`, description: 'Reads a file. '.repeat(20) }));
  const size = promptTokens({ texts: [], values: [big] }, 0);
  const text = Buffer.byteLength(JSON.stringify(big), 'utf8');
  expect(size.tokenBound).toBeGreaterThanOrEqual(size.tokens);
  // Its texts' bytes plus a little per member: within the JSON's own length.
  expect(size.tokenBound).toBeLessThanOrEqual(text);
});

test('the exact count reads the prompt again through its reread, once and only when asked for', () => {
  const parts = { texts: ['You are a coding agent.'], values: [TOOLS] };
  let reads = 0;
  const size = promptTokens(parts, 4, () => (reads++, parts));
  expect(reads).toBe(0);
  expect(size.tokens).toBe(promptTokens(parts, 4).tokens);
  expect(size.tokens).toBe(size.tokens);
  expect(reads).toBe(1);
});
