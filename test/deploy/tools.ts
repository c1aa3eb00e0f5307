/**
 * Deployment checks that need a command-line tool (promtool, kubectl): skipped with the reason where
 * the tool is missing on a developer's machine, run (and so failing) under REQUIRE_SERVICES=1, where
 * CI installs it. A tool that is there but fails is always a failure, never a skip.
 */
import { spawnSync } from 'node:child_process';

/** The test function and title for a test that needs `tool` (found when `tool probe…` exits 0). */
export function withTool(tool: string, probe: string[], title: string): [jest.It, string] {
  const found = spawnSync(tool, probe, { encoding: 'utf8' }).status === 0;
  const run = found || process.env.REQUIRE_SERVICES === '1';
  return [run ? test : test.skip, run ? title : `${title} (skipped: ${tool} is not installed)`];
}
