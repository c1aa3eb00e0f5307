/**
 * The feature ladder's arithmetic (bench/ladder.js): what each feature costs per request, from
 * interleaved windows of the full gateway and of variants with one feature off. A feature's cost
 * in a round is the full gateway's CPU per request (the mean of its windows in the round) minus
 * the variant's; the figure reported is the median over rounds, each round's value kept, so a
 * cost is believable only when the rounds agree.
 */
'use strict';

function median(values) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const round1 = (v) => Math.round(v * 10) / 10;
const round3 = (v) => Math.round(v * 1000) / 1000;

/** The rung with every feature off at once (bench/ladder.js): reported as the skeleton, not summed with the features. */
const EVERY_FEATURE_OFF = 'every feature off';

/**
 * Per-feature costs and the totals they are a part of.
 * @param {Array<{full: Array<{cpuMs: number, rps: number}>, floor: {cpuMs: number, rps: number}, variants: Record<string, {cpuMs: number, rps: number}>}>} rounds
 */
function ladderCosts(rounds) {
  if (rounds.length === 0) throw new Error('ladderCosts: no rounds');
  const fullCpu = rounds.map((r) => mean(r.full.map((w) => w.cpuMs)));
  const fullRps = rounds.map((r) => mean(r.full.map((w) => w.rps)));
  const names = Object.keys(rounds[0].variants);
  const rung = (feature) => {
    const us = rounds.map((r, i) => (fullCpu[i] - r.variants[feature].cpuMs) * 1000);
    const share = rounds.map((r, i) => (fullCpu[i] - r.variants[feature].cpuMs) / fullCpu[i]);
    const rpsRatio = rounds.map((r, i) => r.variants[feature].rps / fullRps[i]);
    return {
      feature,
      usPerRequest: round1(median(us)),
      share: round3(median(share)),
      rpsRatioWithout: round3(median(rpsRatio)),
      rounds: us.map(round1),
    };
  };
  const features = names.filter((n) => n !== EVERY_FEATURE_OFF).map(rung);
  const gatewayUs = median(fullCpu) * 1000;
  const floorUs = median(rounds.map((r) => r.floor.cpuMs)) * 1000;
  const featuresUs = features.reduce((sum, f) => sum + f.usPerRequest, 0);
  return {
    features,
    gatewayUsPerRequest: round1(gatewayUs),
    floorUsPerRequest: round1(floorUs),
    gatewayOfFloorRps: round3(median(rounds.map((r, i) => fullRps[i] / r.floor.rps))),
    /** The features' costs together, and what the gateway pays over the floor besides them (auth, routing, the vector check…). */
    featuresUsPerRequest: round1(featuresUs),
    restOverFloorUsPerRequest: round1(gatewayUs - floorUs - featuresUs),
    /**
     * With every feature off at once: what the features cost together, and the skeleton's CPU
     * and requests/s as a share of the floor's (what no feature's removal can close).
     */
    everyFeatureOff: names.includes(EVERY_FEATURE_OFF)
      ? {
          ...rung(EVERY_FEATURE_OFF),
          skeletonUsPerRequest: round1(median(rounds.map((r) => r.variants[EVERY_FEATURE_OFF].cpuMs)) * 1000),
          skeletonOfFloorRps: round3(median(rounds.map((r) => r.variants[EVERY_FEATURE_OFF].rps / r.floor.rps))),
        }
      : null,
  };
}

module.exports = { EVERY_FEATURE_OFF, ladderCosts, median };
