/**
 * Runs classifier rules on a worker thread with a deadline. Patterns match on RE2, linear in the
 * text, so none backtracks; but linear is not cheap when a pattern compiles to a large program
 * (a counted repetition of a Unicode class) and a classifier may hold thousands of patterns, so
 * one text can still cost seconds. Hence matching never runs on the event loop, and a text not
 * tagged within `timeoutMs` has its worker terminated (stopping the match mid-run); the next
 * text starts a fresh one. This bounds what one text costs, and so how long a tenant's turn in
 * the tagging queue lasts.
 * @module
 */
import path from 'node:path';
import { JobThread } from '../workers/job-thread';
import type { ClassifierDimension } from './types';

/** A tagging job sent to the thread. */
export interface MatchJob {
  /** Identifies the rules (classifier id and version), so the thread compiles them once. */
  key: string;
  dimensions: ClassifierDimension[];
  text: string;
}

/** The tags of one text: a value (or null) per dimension. */
export type MatchTags = Array<{ name: string; value: string | null }>;

/** A text took longer than the matcher's deadline (its worker was terminated). */
export class MatchTimeoutError extends Error {
  constructor() {
    super('classifier matching timed out');
  }
}

const ENTRY = path.join(__dirname, `match-worker${path.extname(__filename)}`);

/** The classifiers' matching thread, with a deadline per text. */
export class ThreadMatcher extends JobThread<MatchJob, MatchTags> {
  /** @param preload - a module the thread requires before its entry (tests: a TypeScript loader) */
  constructor(timeoutMs: number, preload?: string) {
    super({
      entry: ENTRY,
      name: 'classifier matcher',
      timeoutMs,
      timeoutError: () => new MatchTimeoutError(),
      preload,
    });
  }

  /** Tag `text` with `dimensions`; rejects with {@link MatchTimeoutError} past the deadline. */
  match(key: string, dimensions: ClassifierDimension[], text: string): Promise<MatchTags> {
    return this.run({ key, dimensions, text });
  }
}
