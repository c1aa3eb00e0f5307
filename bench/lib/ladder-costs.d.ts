/** Types of ladder-costs.js (the feature ladder's arithmetic; see there). */

/** One 32-connection window: CPU milliseconds per request and requests per second. */
export interface LadderWindow {
  cpuMs: number;
  rps: number;
}

/** One interleaved round: the full gateway's windows, the floor's, and each variant's. */
export interface LadderRound {
  full: LadderWindow[];
  floor: LadderWindow;
  variants: Record<string, LadderWindow>;
}

/** One feature's cost: medians over rounds, and each round's µs. */
export interface FeatureCost {
  feature: string;
  usPerRequest: number;
  share: number;
  rpsRatioWithout: number;
  rounds: number[];
}

export interface LadderCosts {
  features: FeatureCost[];
  gatewayUsPerRequest: number;
  floorUsPerRequest: number;
  gatewayOfFloorRps: number;
  featuresUsPerRequest: number;
  restOverFloorUsPerRequest: number;
  /** The every-feature-off rung, when the run had it: not summed with the features. */
  everyFeatureOff: (FeatureCost & { skeletonUsPerRequest: number; skeletonOfFloorRps: number }) | null;
}

/** The name of the rung with every feature off at once. */
export const EVERY_FEATURE_OFF: string;

export function ladderCosts(rounds: LadderRound[]): LadderCosts;

export function median(values: number[]): number | null;
