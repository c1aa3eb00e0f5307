/**
 * Classifier rules and tagging without a database: first match wins, keywords case-insensitive,
 * no match = unset, the text a pattern sees is capped (and never cut mid-character), only text
 * parts of an input are looked at, patterns run on RE2 (linear time; what it cannot express is
 * refused by name, and a stored one never matches), and `observe` never waits or
 * throws, dropping (and counting) what its bounded queue cannot hold.
 */
import { checkDimensions, compileDimensions, inputText, patternProblem, tagText } from '../../src/classifiers/rules';
import { ClassifierService } from '../../src/classifiers/service';
import { Metrics } from '../../src/observability/metrics';
import { createLogger } from '../../src/observability/logger';
import type { Database } from '../../src/store/db';

const DIMS = compileDimensions([
  {
    name: 'topic',
    rules: [
      { value: 'billing', keywords: ['Invoice'] },
      { value: 'tech', patterns: ['error\\s+\\d+'] },
      { value: 'late', keywords: ['invoice'] },
    ],
  },
  { name: 'lang', rules: [{ value: 'fr', patterns: ['\\bbonjour\\b'] }] },
]);

test('first matching rule wins; keywords ignore case; patterns are case-insensitive; no match is null', () => {
  expect(tagText(DIMS, 'my INVOICE shows error 42')).toEqual([
    { name: 'topic', value: 'billing' },
    { name: 'lang', value: null },
  ]);
  expect(tagText(DIMS, 'ERROR 7, Bonjour')).toEqual([
    { name: 'topic', value: 'tech' },
    { name: 'lang', value: 'fr' },
  ]);
  expect(tagText(DIMS, 'nothing here')).toEqual([
    { name: 'topic', value: null },
    { name: 'lang', value: null },
  ]);
});

test('patterns match in linear time: alternation under a star on an 8 KB "aaaa…!" text is tagged in process, as a backtracking engine tags a short one', () => {
  const patterns = [
    '^(a|a)*$',
    '^(a|aa)*$',
    '^(\\w|\\d)*!$',
    '(?:a|a)*c',
    '((a)|(a))*$',
    '^(a|ab|abc)*d$',
    '(a|b|ab)*c$',
    '(a+)+$',
  ];
  const dims = compileDimensions(patterns.map((p, i) => ({ name: `d${i}`, rules: [{ value: 'hit', patterns: [p] }] })));
  const got = tagText(dims, `${'a'.repeat(8191)}!`).map((t) => t.value);
  expect(got).toEqual(patterns.map((p) => (new RegExp(p, 'iu').test('aaaa!') ? 'hit' : null)));
});

test('case-insensitive like before (Unicode folding too); a stored pattern RE2 cannot compile never matches instead of failing the text', () => {
  const dims = compileDimensions([
    { name: 'a', rules: [{ value: 'x', patterns: ['(?=never)', 'ÉTÉ'] }] },
    {
      name: 'b',
      rules: [
        { value: 'y', patterns: ['(a)\\1'] },
        { value: 'z', keywords: ['été'] },
      ],
    },
  ]);
  expect(tagText(dims, 'un été')).toEqual([
    { name: 'a', value: 'x' },
    { name: 'b', value: 'z' },
  ]);
  expect(tagText(dims, 'aa')).toEqual([
    { name: 'a', value: null },
    { name: 'b', value: null },
  ]);
});

test('checking a large classifier yields to the event loop between slices of work instead of holding it to the end', async () => {
  // 1,000 patterns with Unicode classes: RE2 builds a program for each, together far more than one slice.
  const dims = [
    {
      name: 'd',
      rules: Array.from({ length: 20 }, (_, r) => ({
        value: 'v',
        patterns: Array.from({ length: 50 }, (_, k) => `[\\p{L}\\p{N}]{20}x${r}_${k}`),
      })),
    },
  ];
  const order: string[] = [];
  setImmediate(() => order.push('event loop turn'));
  const issues = await Promise.resolve(checkDimensions(dims)).finally(() => order.push('checked'));
  expect(issues).toEqual([]);
  expect(order).toEqual(['event loop turn', 'checked']);
});

test('input text: strings joined, text parts of multimodal input, no text for token ids, capped at 8 KB on a character boundary', () => {
  expect(inputText('a')).toBe('a');
  expect(inputText(['a', 'b'])).toBe('a\nb');
  expect(
    inputText([
      {
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image_url', image_url: { url: 'x' } },
        ],
      },
    ]),
  ).toBe('hi');
  expect(inputText([1, 2, 3])).toBe('');
  expect(inputText([[1, 2]])).toBe('');
  const long = inputText('x'.repeat(20_000));
  expect(long.length).toBe(8192);
  const euros = inputText('€'.repeat(5000));
  expect(Buffer.byteLength(euros)).toBeLessThanOrEqual(8192);
  expect(euros).toBe('€'.repeat(Math.floor(8192 / 3)));
  expect(Buffer.byteLength(inputText(Array.from({ length: 100 }, () => 'y'.repeat(1000))))).toBeLessThanOrEqual(
    8192 + 10,
  );
});

test('constructs RE2 cannot run are refused by name; invalid and overlong patterns are refused; the rest pass', async () => {
  const refused: Array<[string, RegExp]> = [
    ['(a)\\1', /backreference `\\1`/],
    ['(?<w>a)\\k<w>', /named backreference `\\k`/],
    ['(?=a)', /lookahead `\(\?=`/],
    ['(?!a)', /negative lookahead `\(\?!`/],
    ['(?<=a)b', /lookbehind `\(\?<=`/],
    ['(?<!a)b', /negative lookbehind `\(\?<!`/],
    ['a*+', /possessive quantifier `\*\+`/],
    ['x{2}+', /possessive quantifier `\{2\}\+`/],
    ['(?>ab)', /atomic group `\(\?>`/],
  ];
  for (const [p, message] of refused) expect([p, patternProblem(p)]).toEqual([p, expect.stringMatching(message)]);
  expect(patternProblem('([a-')).toMatch(/not a valid regular expression.*missing closing \]/);
  expect(patternProblem('caf\\u00e9')).toMatch(/\\x\{/);
  expect(patternProblem('a'.repeat(201))).toMatch(/at most 200/);
  // Nested quantifiers and overlapping alternatives are linear-time for RE2, so they are accepted.
  for (const p of [
    '\\berror\\s+\\d+',
    '^refund',
    'inv(oice|oices)?',
    '(a+)+$',
    '(a*)*b',
    '(x+x+)+y',
    '(.*a){20}',
    'caf\\x{e9}',
    '(?<w>a)',
  ])
    expect([p, patternProblem(p)]).toEqual([p, null]);
  expect(await checkDimensions([{ name: 'a', rules: [{ value: 'v' }] }])).toEqual([
    { path: 'body.dimensions.0.rules.0', message: 'needs at least one keyword or pattern' },
  ]);
});

test("observe returns at once even when the database never answers; past an organization's share or the whole bound, requests are dropped and counted", async () => {
  const never = new Promise<never>(() => undefined);
  const db = { query: () => never, transaction: () => never } as unknown as Database;
  const metrics = new Metrics();
  const svc = new ClassifierService(db, {
    logger: createLogger('silent'),
    metrics,
    maxQueued: 15,
    maxQueuedPerOrg: 10,
  });
  // observe is synchronous (returns void): the loop cannot wait on the hanging database.
  for (let i = 0; i < 25; i++)
    expect(
      svc.observe({ generationId: `g${i}`, orgId: 'o', workspaceId: 'w', input: 'text', createdAt: new Date() }),
    ).toBeUndefined();
  for (let i = 0; i < 10; i++)
    expect(
      svc.observe({ generationId: `p${i}`, orgId: 'p', workspaceId: 'v', input: 'text', createdAt: new Date() }),
    ).toBeUndefined();
  const counted = await metrics.registry.getSingleMetricAsString('switchyard_classifier_tagging_total');
  expect(counted).toMatch(/outcome="org_queue_full"} 15/);
  expect(counted).toMatch(/outcome="dropped"} 5/);
});
