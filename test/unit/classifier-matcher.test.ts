/**
 * The classifier matcher thread: tags like the in-process rules, and a pattern that passes the
 * creation checks yet backtracks exponentially is stopped at the deadline (its worker
 * terminated) while the event loop stays free; the next text gets a fresh worker.
 */
import { ThreadMatcher, MatchTimeoutError } from '../../src/classifiers/matcher';
import { patternProblem } from '../../src/classifiers/rules';
import { TS_LOADER } from '../helpers/services';

const matcher = new ThreadMatcher(2000, TS_LOADER);
afterAll(() => matcher.close());

const DIMS = [{ name: 'topic', rules: [{ value: 'billing', keywords: ['invoice'] }] }];
// Star height 1 (safe-regex2 accepts it), but overlapping alternatives: exponential on "aaaa…!".
const SLOW = [{ name: 'slow', rules: [{ value: 'x', patterns: ['^(a|a)*$'] }] }];

test('tags on the worker thread', async () => {
  await expect(matcher.match('c1@0', DIMS, 'my Invoice')).resolves.toEqual([{ name: 'topic', value: 'billing' }]);
  await expect(matcher.match('c1@0', DIMS, 'nothing')).resolves.toEqual([{ name: 'topic', value: null }]);
});

test('a slow pattern is terminated at the deadline without blocking the event loop; the next job gets a new worker', async () => {
  expect(patternProblem('^(a|a)*$')).toBeNull();
  let settled = false;
  const job = matcher.match('slow@0', SLOW, `${'a'.repeat(40)}!`).finally(() => {
    settled = true;
  });
  // This thread keeps running timers while the worker is stuck in the pattern.
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(settled).toBe(false);
  await expect(job).rejects.toBeInstanceOf(MatchTimeoutError);
  await expect(matcher.match('c1@0', DIMS, 'invoice')).resolves.toEqual([{ name: 'topic', value: 'billing' }]);
});
