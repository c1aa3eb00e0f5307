#!/usr/bin/env node
/**
 * The `switchyard` admin CLI entry point; see `cli/run.ts` for the commands.
 * @module
 */
import { runCli } from './cli/run';

const out = { line: (t: string) => process.stdout.write(`${t}\n`) };
const err = { line: (t: string) => process.stderr.write(`${t}\n`) };

runCli(process.argv.slice(2), process.env, out, err).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    err.line(`error: ${(e as Error).message}`);
    process.exitCode = 1;
  },
);
