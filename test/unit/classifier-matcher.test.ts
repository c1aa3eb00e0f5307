/**
 * The classifier matcher thread: tags like the in-process rules, and rules that pass the creation
 * checks yet cost more than the deadline (linear-time, but many large programs stepped along an
 * 8 KB text) are stopped there (the worker terminated) while the event loop stays free; the next
 * text gets a fresh worker.
 */
import { ThreadMatcher, MatchTimeoutError } from '../../src/classifiers/matcher';
import { patternProblem } from '../../src/classifiers/rules';
import { TS_LOADER } from '../helpers/services';

const matcher = new ThreadMatcher(2000, TS_LOADER);
afterAll(() => matcher.close());

const DIMS = [{ name: 'topic', rules: [{ value: 'billing', keywords: ['invoice'] }] }];
// Each pattern is linear-time but steps a program of about 1,000 instructions along the text.
const SLOW_PATTERNS = Array.from({ length: 50 }, (_, i) => `\\p{L}{1000}${i}`);
const SLOW = [{ name: 'slow', rules: [{ value: 'x', patterns: SLOW_PATTERNS }] }];

test('tags on the worker thread', async () => {
  await expect(matcher.match('c1@0', DIMS, 'my Invoice')).resolves.toEqual([{ name: 'topic', value: 'billing' }]);
  await expect(matcher.match('c1@0', DIMS, 'nothing')).resolves.toEqual([{ name: 'topic', value: null }]);
});

test('slow rules are terminated at the deadline without blocking the event loop; the next job gets a new worker', async () => {
  for (const p of SLOW_PATTERNS) expect(patternProblem(p)).toBeNull();
  let settled = false;
  const job = matcher.match('slow@0', SLOW, `${'a'.repeat(8191)}!`).finally(() => {
    settled = true;
  });
  // This thread keeps running timers while the worker is stuck in the pattern.
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(settled).toBe(false);
  await expect(job).rejects.toBeInstanceOf(MatchTimeoutError);
  await expect(matcher.match('c1@0', DIMS, 'invoice')).resolves.toEqual([{ name: 'topic', value: 'billing' }]);
});
