/**
 * Worker-thread entry of the matcher (`matcher.ts`): tags texts with classifier rules off the main
 * thread, so rules that are costly to run (linear in the text, but many or large) occupy only
 * this thread, which the matcher terminates at its deadline.
 * @module
 */
import { serveJobs } from '../workers/job-thread';
import { tagText } from './rules';
import { RuleCache } from './rule-cache';
import type { MatchJob, MatchTags } from './matcher';

const rules = new RuleCache({ maxEntries: 1000, maxHeapBytes: 256 * 1024 * 1024 });

serveJobs<MatchJob, MatchTags>((m) => tagText(rules.get(m.key, m.dimensions), m.text));
