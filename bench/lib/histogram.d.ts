/** Types of histogram.js (a Prometheus histogram read off the gateway's metrics; see there). */

/** Observations between two scrapes: their count and the share at or under each bound (seconds). */
export interface HistogramDelta {
  total: number;
  shares: Array<{ le: number; share: number }>;
}

/** Cumulative counts by bucket bound of histogram `name`, summed over label sets. */
export function bucketCounts(text: string, name: string): Map<number, number>;

/** The observations of `name` made between scrapes `before` and `after`. */
export function histogramDelta(before: string, after: string, name: string): HistogramDelta;

/** Several deltas of one histogram as one. */
export function mergeDeltas(deltas: HistogramDelta[]): HistogramDelta;

/** The smallest bound under which at least `q` of the observations fall (null when none). */
export function quantileBound(delta: HistogramDelta, q: number): number | null;
