/**
 * Runs an SDK driver (`test/clients/*.mjs`) in a child process against a listening gateway and
 * parses the one JSON object it prints. The SDKs under test are ESM-only or expect a plain Node
 * runtime, while jest loads our code as CommonJS, hence the child process.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/** Run `driver` (a file name beside this one) with SERVER_URL and API_KEY set; returns its parsed output. */
export async function runDriver<T>(
  driver: string,
  serverUrl: string,
  apiKey: string,
  env: Record<string, string> = {},
): Promise<T> {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(__dirname, driver)], {
    env: { ...process.env, SERVER_URL: serverUrl, API_KEY: apiKey, ...env },
    timeout: 30_000,
    maxBuffer: 4 * 1024 * 1024,
  });
  return JSON.parse(stdout) as T;
}
