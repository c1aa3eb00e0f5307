/**
 * The benchmark's reading of the gateway's histograms (bench/lib/histogram.js): the observations
 * between two scrapes, summed over label sets, and a quantile's bucket bound.
 */
import { bucketCounts, histogramDelta, mergeDeltas, quantileBound } from '../lib/histogram';

const scrape = (rows: Array<[labels: string, le: string, count: number]>): string =>
  [
    '# HELP h_seconds x',
    '# TYPE h_seconds histogram',
    ...rows.map(([labels, le, count]) => `h_seconds_bucket{${labels}le="${le}"} ${count}`),
    'h_seconds_sum 1',
    'other_bucket{le="0.5"} 99',
  ].join('\n');

describe('bench histogram reading', () => {
  it('sums bucket counts over label sets and ignores other metrics', () => {
    const text = scrape([
      ['a="1",', '0.001', 2],
      ['a="1",', '+Inf', 3],
      ['a="2",', '0.001', 5],
      ['a="2",', '+Inf', 5],
    ]);
    expect([...bucketCounts(text, 'h_seconds')]).toEqual([
      [0.001, 7],
      [Infinity, 8],
    ]);
  });

  it('takes only the observations made between the scrapes', () => {
    const before = scrape([
      ['', '0.0005', 10],
      ['', '0.001', 10],
      ['', '0.005', 10],
      ['', '+Inf', 10],
    ]);
    const after = scrape([
      ['', '0.0005', 100],
      ['', '0.001', 108],
      ['', '0.005', 109],
      ['', '+Inf', 110],
    ]);
    const delta = histogramDelta(before, after, 'h_seconds');
    expect(delta.total).toBe(100);
    expect(delta.shares).toEqual([
      { le: 0.0005, share: 0.9 },
      { le: 0.001, share: 0.98 },
      { le: 0.005, share: 0.99 },
      { le: Infinity, share: 1 },
    ]);
    expect(quantileBound(delta, 0.5)).toBe(0.0005);
    expect(quantileBound(delta, 0.99)).toBe(0.005);
    expect(quantileBound(delta, 0.999)).toBe(Infinity);
  });

  it('merges rounds weighted by their counts', () => {
    const merged = mergeDeltas([
      {
        total: 10,
        shares: [
          { le: 0.001, share: 1 },
          { le: Infinity, share: 1 },
        ],
      },
      {
        total: 30,
        shares: [
          { le: 0.001, share: 0.5 },
          { le: Infinity, share: 1 },
        ],
      },
    ]);
    expect(merged.total).toBe(40);
    expect(merged.shares).toEqual([
      { le: 0.001, share: 25 / 40 },
      { le: Infinity, share: 1 },
    ]);
  });

  it('has no quantile without observations', () => {
    const text = scrape([
      ['', '0.001', 4],
      ['', '+Inf', 4],
    ]);
    expect(quantileBound(histogramDelta(text, text, 'h_seconds'), 0.99)).toBeNull();
  });
});
