/**
 * The sampler's classifier on a worker thread (see `worker.ts`), started on the first sample, so
 * a process that never samples never starts it. If the thread dies, the samples it held fail
 * (the sampler counts and logs them) and the next sample starts a new one.
 * @module
 */
import path from 'node:path';
import { JobThread } from '../../workers/job-thread';
import type { Classification, Classify } from '../sampler';

/** The worker's entry beside this file (`.js` when compiled, `.ts` under the test runner). */
const ENTRY = path.join(__dirname, `worker${path.extname(__filename)}`);

/**
 * The thread's own heap bounds: it holds compiled regexes and one text of at most 8,000
 * characters at a time, and with Node's default limits it would let garbage grow far past that
 * before collecting. A thread that exceeds them exits, and the next sample starts a new one.
 */
export const THREAD_HEAP_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 } as const;

/** A classifier thread; `classify` is its {@link Classify}. */
export class ClassifierThread extends JobThread<string, Classification> {
  /** @param preload - a module the thread requires before its entry (tests: a TypeScript loader) */
  constructor(preload?: string) {
    super({ entry: ENTRY, name: 'classifier thread', resourceLimits: THREAD_HEAP_LIMITS, preload });
  }

  /** Classify `text` on the thread. */
  readonly classify: Classify = (text) => this.run(text);
}
