/**
 * Worker-thread entry of {@link ThreadMatcher}: tags texts with classifier rules off the main
 * thread, so a pattern that backtracks badly despite the checks at creation stalls only this
 * thread, which the matcher then terminates.
 * @module
 */
import { parentPort } from 'node:worker_threads';
import { compileDimensions, tagText, type CompiledDimension } from './rules';
import type { MatchRequest, MatchReply } from './matcher';

const compiled = new Map<string, CompiledDimension[]>();
const MAX_CACHED = 1000;

parentPort?.on('message', (m: MatchRequest) => {
  let dims = compiled.get(m.key);
  if (!dims) {
    if (compiled.size >= MAX_CACHED) compiled.clear();
    dims = compileDimensions(m.dimensions);
    compiled.set(m.key, dims);
  }
  const reply: MatchReply = { id: m.id, tags: tagText(dims, m.text) };
  parentPort?.postMessage(reply);
});
// Loaded: the matcher starts its deadlines from here, not from the thread's start-up.
parentPort?.postMessage({ ready: true });
