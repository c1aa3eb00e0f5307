/**
 * The matcher thread's cache of compiled rules: one compile per classifier version while memory
 * allows, bounded by count, and emptied once the thread's heap passes its bound, because RE2JS
 * keeps a DFA per pattern that grows with every text matched (a few hundred cached classifiers of
 * 50 patterns would otherwise hold gigabytes).
 */
import { RuleCache } from '../../src/classifiers/rule-cache';
import { tagText } from '../../src/classifiers/rules';

const DIMS = [{ name: 'topic', rules: [{ value: 'tech', patterns: ['error\\s+\\d+'] }] }];

test('compiles a classifier version once and reuses it; a full cache starts again', () => {
  const cache = new RuleCache({ maxEntries: 2, maxHeapBytes: Infinity });
  const first = cache.get('c1@0', DIMS);
  expect(tagText(first, 'ERROR 42')).toEqual([{ name: 'topic', value: 'tech' }]);
  expect(cache.get('c1@0', DIMS)).toBe(first);
  cache.get('c2@0', DIMS);
  cache.get('c3@0', DIMS);
  expect(cache.get('c1@0', DIMS)).not.toBe(first);
});

test('past the heap bound the cache is emptied, so the compiled patterns and their DFAs can be collected', () => {
  let heap = 10;
  const cache = new RuleCache({ maxEntries: 1000, maxHeapBytes: 100, heapUsed: () => heap });
  const first = cache.get('c1@0', DIMS);
  expect(cache.get('c1@0', DIMS)).toBe(first);
  heap = 101;
  const again = cache.get('c1@0', DIMS);
  expect(again).not.toBe(first);
  heap = 50;
  expect(cache.get('c1@0', DIMS)).toBe(again);
});
