/**
 * Classifier rules and tagging without a database: first match wins, keywords case-insensitive,
 * no match = unset, the text a pattern sees is capped (and never cut mid-character), only text
 * parts of an input are looked at, unsafe patterns are refused, and `observe` never waits or
 * throws, dropping (and counting) what its bounded queue cannot hold.
 */
import { checkDimensions, compileDimensions, inputText, patternProblem, tagText } from '../../src/classifiers/rules';
import { ClassifierService } from '../../src/classifiers/service';
import { Metrics } from '../../src/observability/metrics';
import { createLogger } from '../../src/observability/logger';
import type { Database } from '../../src/store/db';

const DIMS = compileDimensions([
  { name: 'topic', rules: [{ value: 'billing', keywords: ['Invoice'] }, { value: 'tech', patterns: ['error\\s+\\d+'] }, { value: 'late', keywords: ['invoice'] }] },
  { name: 'lang', rules: [{ value: 'fr', patterns: ['\\bbonjour\\b'] }] },
]);

test('first matching rule wins; keywords ignore case; patterns are case-insensitive; no match is null', () => {
  expect(tagText(DIMS, 'my INVOICE shows error 42')).toEqual([{ name: 'topic', value: 'billing' }, { name: 'lang', value: null }]);
  expect(tagText(DIMS, 'ERROR 7, Bonjour')).toEqual([{ name: 'topic', value: 'tech' }, { name: 'lang', value: 'fr' }]);
  expect(tagText(DIMS, 'nothing here')).toEqual([{ name: 'topic', value: null }, { name: 'lang', value: null }]);
});

test('input text: strings joined, text parts of multimodal input, no text for token ids, capped at 8 KB on a character boundary', () => {
  expect(inputText('a')).toBe('a');
  expect(inputText(['a', 'b'])).toBe('a\nb');
  expect(inputText([{ content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'x' } }] }])).toBe('hi');
  expect(inputText([1, 2, 3])).toBe('');
  expect(inputText([[1, 2]])).toBe('');
  const long = inputText('x'.repeat(20_000));
  expect(long.length).toBe(8192);
  const euros = inputText('€'.repeat(5000));
  expect(Buffer.byteLength(euros)).toBeLessThanOrEqual(8192);
  expect(euros).toBe('€'.repeat(Math.floor(8192 / 3)));
  expect(Buffer.byteLength(inputText(Array.from({ length: 100 }, () => 'y'.repeat(1000))))).toBeLessThanOrEqual(8192 + 10);
});

test('unsafe, invalid and overlong patterns are refused; safe ones pass', () => {
  for (const p of ['(a+)+$', '(a*)*b', '(x+x+)+y', '(.*a){20}']) expect(patternProblem(p)).toMatch(/backtrack/);
  expect(patternProblem('([a-')).toMatch(/not a valid/);
  expect(patternProblem('a'.repeat(201))).toMatch(/at most 200/);
  for (const p of ['\\berror\\s+\\d+', '^refund', 'inv(oice|oices)?']) expect(patternProblem(p)).toBeNull();
  expect(checkDimensions([{ name: 'a', rules: [{ value: 'v' }] }])).toEqual([{ path: 'body.dimensions.0.rules.0', message: 'needs at least one keyword or pattern' }]);
});

test('observe returns at once even when the database never answers; overflow is dropped and counted', async () => {
  const never = new Promise<never>(() => undefined);
  const db = { query: () => never, transaction: () => never } as unknown as Database;
  const metrics = new Metrics();
  const svc = new ClassifierService(db, { logger: createLogger('silent'), metrics, maxQueued: 10 });
  // observe is synchronous (returns void): the loop cannot wait on the hanging database.
  for (let i = 0; i < 25; i++) expect(svc.observe({ generationId: `g${i}`, orgId: 'o', workspaceId: 'w', input: 'text', createdAt: new Date() })).toBeUndefined();
  expect(await metrics.registry.getSingleMetricAsString('switchyard_classifier_tagging_total')).toMatch(/outcome="dropped"} 15/);
});
