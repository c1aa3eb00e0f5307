/**
 * The feature ladder's arithmetic (bench/lib/ladder-costs.js): a feature's cost is the full
 * gateway's CPU per request (the mean of its windows in the round) minus the variant's, the
 * median over rounds, in µs and as a share of the full gateway's.
 */
import { EVERY_FEATURE_OFF, ladderCosts, type LadderRound } from '../lib/ladder-costs';

const w = (cpuMs: number, rps = 1000) => ({ cpuMs, rps });

describe('bench feature ladder costs', () => {
  it('takes each round against the mean of its full windows, and reports the median over rounds', () => {
    const rounds: LadderRound[] = [
      // Full windows 0.9 and 1.1 (mean 1.0 ms): the variant saves 0.2 ms.
      { full: [w(0.9), w(1.1)], floor: w(0.5, 2000), variants: { usage: w(0.8, 1250) } },
      // A noisy round: 0.5 ms saved.
      { full: [w(1.0), w(1.0)], floor: w(0.5, 2000), variants: { usage: w(0.5, 2000) } },
      { full: [w(1.2), w(0.8)], floor: w(0.6, 2000), variants: { usage: w(0.9, 1100) } },
    ];
    const costs = ladderCosts(rounds);
    expect(costs.features).toEqual([
      { feature: 'usage', usPerRequest: 200, share: 0.2, rpsRatioWithout: 1.25, rounds: [200, 500, 100] },
    ]);
    expect(costs.gatewayUsPerRequest).toBe(1000);
    expect(costs.floorUsPerRequest).toBe(500);
    expect(costs.gatewayOfFloorRps).toBe(0.5);
  });

  it('splits the gap over the floor into the features and the rest', () => {
    const costs = ladderCosts([{ full: [w(1.0)], floor: w(0.4), variants: { a: w(0.9), b: w(0.75) } }]);
    expect(costs.features.map((f) => [f.feature, f.usPerRequest, f.share])).toEqual([
      ['a', 100, 0.1],
      ['b', 250, 0.25],
    ]);
    expect(costs.featuresUsPerRequest).toBe(350);
    expect(costs.restOverFloorUsPerRequest).toBe(250);
  });

  it('reports a feature that measured cheaper than noise as a negative cost rather than hiding it', () => {
    const costs = ladderCosts([{ full: [w(1.0)], floor: w(0.5), variants: { noise: w(1.05) } }]);
    expect(costs.features[0]?.usPerRequest).toBe(-50);
  });

  it('reports the every-feature-off rung as the skeleton, apart from the features it would double-count', () => {
    const costs = ladderCosts([
      { full: [w(1.0, 1000)], floor: w(0.4, 2000), variants: { a: w(0.9), [EVERY_FEATURE_OFF]: w(0.7, 1500) } },
    ]);
    expect(costs.features.map((f) => f.feature)).toEqual(['a']);
    expect(costs.featuresUsPerRequest).toBe(100);
    expect(costs.everyFeatureOff).toMatchObject({
      usPerRequest: 300,
      skeletonUsPerRequest: 700,
      skeletonOfFloorRps: 0.75,
    });
    expect(ladderCosts([{ full: [w(1.0)], floor: w(0.4), variants: { a: w(0.9) } }]).everyFeatureOff).toBeNull();
  });

  it('refuses to compute without rounds', () => {
    expect(() => ladderCosts([])).toThrow('no rounds');
  });
});
