/**
 * Reads a Prometheus histogram off the gateway's metrics endpoint, so the benchmark can say how
 * much of a latency figure is the gateway's own time: the client's p99 through the gateway
 * includes reaching its event loop and the process hops around it, which the gateway's
 * `switchyard_gateway_overhead_seconds` (its time minus the upstream call) does not.
 */
'use strict';

/**
 * Cumulative counts by bucket bound (`le`, in seconds; `Infinity` for `+Inf`) of histogram `name`
 * in exposition `text`, summed over every label set.
 * @param {string} text
 * @param {string} name
 * @returns {Map<number, number>}
 */
function bucketCounts(text, name) {
  const counts = new Map();
  const prefix = `${name}_bucket{`;
  for (const line of text.split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const le = /le="([^"]+)"/.exec(line);
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (!le || !Number.isFinite(value)) continue;
    const bound = le[1] === '+Inf' ? Infinity : Number(le[1]);
    counts.set(bound, (counts.get(bound) ?? 0) + value);
  }
  return counts;
}

/**
 * The observations made between two scrapes, as the share of them at or under each bound, in
 * ascending order of bound; `total` is how many there were.
 * @param {string} before
 * @param {string} after
 * @param {string} name
 * @returns {{total: number, shares: Array<{le: number, share: number}>}}
 */
function histogramDelta(before, after, name) {
  const a = bucketCounts(before, name);
  const b = bucketCounts(after, name);
  const total = (b.get(Infinity) ?? 0) - (a.get(Infinity) ?? 0);
  const shares = [...b.keys()]
    .sort((x, y) => x - y)
    .map((le) => ({ le, share: total > 0 ? ((b.get(le) ?? 0) - (a.get(le) ?? 0)) / total : 0 }));
  return { total, shares };
}

/**
 * The smallest bucket bound (seconds) under which at least quantile `q` of the observations fall:
 * an upper bound on the q-quantile at the histogram's resolution (null when there were none).
 * @param {{total: number, shares: Array<{le: number, share: number}>}} delta
 * @param {number} q
 * @returns {number | null}
 */
function quantileBound(delta, q) {
  if (delta.total === 0) return null;
  const hit = delta.shares.find((s) => s.share >= q);
  return hit ? hit.le : Infinity;
}

/**
 * Several deltas of one histogram (e.g. one per benchmark round) as one.
 * @param {Array<{total: number, shares: Array<{le: number, share: number}>}>} deltas
 * @returns {{total: number, shares: Array<{le: number, share: number}>}}
 */
function mergeDeltas(deltas) {
  const counts = new Map();
  let total = 0;
  for (const d of deltas) {
    total += d.total;
    for (const { le, share } of d.shares) counts.set(le, (counts.get(le) ?? 0) + share * d.total);
  }
  const shares = [...counts.keys()]
    .sort((x, y) => x - y)
    .map((le) => ({ le, share: total > 0 ? (counts.get(le) ?? 0) / total : 0 }));
  return { total, shares };
}

module.exports = { bucketCounts, histogramDelta, mergeDeltas, quantileBound };
