/**
 * The matcher thread's compiled rules, by classifier version. Compiling on every text would cost
 * more than matching, so rules are kept; but RE2JS keeps a lazily built DFA per pattern that
 * grows with the texts it matches, so a count alone does not bound the memory: past a heap size
 * the cache is emptied (the patterns and their DFAs become garbage) and rules compile again on
 * their next use.
 * @module
 */
import { getHeapStatistics } from 'node:v8';
import { compileDimensions, type CompiledDimension } from './rules';
import type { ClassifierDimension } from './types';

/** Options of {@link RuleCache}. */
export interface RuleCacheOptions {
  /** Classifier versions kept at most. */
  maxEntries: number;
  /** Heap in use (bytes) past which the cache is emptied. */
  maxHeapBytes: number;
  /** The heap in use, in bytes (tests inject it). */
  heapUsed?: () => number;
}

/** Compiled rules by key, bounded by count and by the thread's heap. */
export class RuleCache {
  private readonly compiled = new Map<string, CompiledDimension[]>();
  private readonly heapUsed: () => number;

  constructor(private readonly o: RuleCacheOptions) {
    this.heapUsed = o.heapUsed ?? (() => getHeapStatistics().used_heap_size);
  }

  /** The compiled `dimensions` of `key` (a classifier id and version), compiling them when not kept. */
  get(key: string, dimensions: ClassifierDimension[]): CompiledDimension[] {
    if (this.heapUsed() > this.o.maxHeapBytes) this.compiled.clear();
    let dims = this.compiled.get(key);
    if (!dims) {
      if (this.compiled.size >= this.o.maxEntries) this.compiled.clear();
      dims = compileDimensions(dimensions);
      this.compiled.set(key, dims);
    }
    return dims;
  }
}
