/** The benchmark's one definition of a percentile: the nearest-rank value of sorted latencies, in ms to the microsecond. */
'use strict';

/**
 * @param {ArrayLike<number>} sorted - ascending
 * @param {number} p - 0..100
 * @returns {number|null}
 */
function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const at = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[Math.max(0, at)] * 1000) / 1000;
}

module.exports = { percentile };
