/**
 * One answer never mixes vector lengths. The lookup keeps only hits of one length, but the
 * upstream's vectors for the misses may have another (the provider changed its model, or an
 * endpoint that ignores `dimensions` answered where one that honours it produced the entries).
 * Such hits are stale for this answer: they are embedded again on the endpoint that answered and
 * become misses of the plan (billed, and their entries replaced once the answer is sent).
 * @module
 */
import type { Vector } from '../../providers/embeddings-types';
import type { CachePlan } from './plan';

/** Indices of the plan's hits whose vectors are not `length` long, ascending. */
export function staleHits(p: CachePlan, length: number): number[] {
  const stale: number[] = [];
  p.hits.forEach((hit, i) => {
    if (hit && hit.length !== length) stale.push(i);
  });
  return stale;
}

/**
 * The plan with the `stale` hits turned into misses, and the upstream vectors in the new misses'
 * order: `upstream` answered the plan's misses, `redone` the stale hits (both in ascending order).
 */
export function withStaleAsMisses(
  p: CachePlan,
  stale: readonly number[],
  upstream: readonly Vector[],
  redone: readonly Vector[],
): { plan: CachePlan; upstream: Vector[] } {
  const byIndex = new Map<number, Vector>();
  p.misses.forEach((index, k) => byIndex.set(index, upstream[k] as Vector));
  stale.forEach((index, k) => byIndex.set(index, redone[k] as Vector));
  const misses = [...byIndex.keys()].sort((a, b) => a - b);
  const hits = p.hits.map((hit, i) => (byIndex.has(i) ? undefined : hit));
  return { plan: { ...p, hits, misses }, upstream: misses.map((i) => byIndex.get(i) as Vector) };
}
