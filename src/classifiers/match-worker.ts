/**
 * Worker-thread entry of the matcher (`matcher.ts`): tags texts with classifier rules off the main
 * thread, so rules that are costly to run (linear in the text, but many or large) occupy only
 * this thread, which the matcher terminates at its deadline.
 * @module
 */
import { serveJobs } from '../workers/job-thread';
import { compileDimensions, tagText, type CompiledDimension } from './rules';
import type { MatchJob, MatchTags } from './matcher';

const compiled = new Map<string, CompiledDimension[]>();
const MAX_CACHED = 1000;

serveJobs<MatchJob, MatchTags>((m) => {
  let dims = compiled.get(m.key);
  if (!dims) {
    if (compiled.size >= MAX_CACHED) compiled.clear();
    dims = compileDimensions(m.dimensions);
    compiled.set(m.key, dims);
  }
  return tagText(dims, m.text);
});
