/**
 * Installs the real coding agents the e2e test drives (Claude Code and Codex), at pinned
 * versions, into a cache folder outside the clone (they are hundreds of MB, so they are not
 * dependencies of the project): `$SWITCHYARD_AGENTS_DIR/<versions>`, else
 * `$XDG_CACHE_HOME/switchyard-agents/<versions>`, else `~/.cache/switchyard-agents/<versions>`.
 * An install is reused while its marker file is there; one cut short (no marker) is done again.
 * Both packages ship their native binaries as optional per-platform packages, which the npm
 * install brings in; the install is checked by running each binary's `--version`.
 *
 * As a script: `node -r ./test/helpers/ts-loader.js test/agents/install.ts` prints the binaries.
 * @module
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The pinned versions. */
export const AGENT_VERSIONS = { claudeCode: '2.1.332', codex: '0.171.0' } as const;

const PACKAGES = [`@anthropic-ai/claude-code@${AGENT_VERSIONS.claudeCode}`, `@openai/codex@${AGENT_VERSIONS.codex}`];
const MARKER = '.switchyard-agents-installed';

/** The installed agents. */
export interface InstalledAgents {
  dir: string;
  /** The `claude` executable. */
  claude: string;
  /** The `codex` launcher (a Node script that runs the platform binary). */
  codex: string;
  versions: { claude: string; codex: string };
}

/** The cache folder for the pinned versions. */
export function agentsDir(env: NodeJS.ProcessEnv = process.env): string {
  const root =
    env.SWITCHYARD_AGENTS_DIR ||
    path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'switchyard-agents');
  return path.join(root, `claude-code-${AGENT_VERSIONS.claudeCode}_codex-${AGENT_VERSIONS.codex}`);
}

function binaries(dir: string): { claude: string; codex: string } {
  return {
    claude: path.join(dir, 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe'),
    codex: path.join(dir, 'node_modules', '@openai', 'codex', 'bin', 'codex.js'),
  };
}

/** `<file> --version`, in a throwaway home: Codex makes `$CODEX_HOME` (~/.codex) even for that. */
async function versionOf(file: string): Promise<string> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'sy-agents-version-'));
  try {
    const env = { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: home, CLAUDE_CONFIG_DIR: home, NO_COLOR: '1' };
    const { stdout } = await run(file, ['--version'], { timeout: 60_000, env });
    return stdout.trim();
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

let installing: Promise<InstalledAgents> | null = null;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Run `fn` holding `<dir>.lock` (a folder with the holder's pid), so that two runs on one machine
 * (a developer's and CI's) never install into the cache at once; a lock whose holder is gone is taken over.
 */
async function withLock<T>(dir: string, fn: (addHolder: (pid: number) => void) => Promise<T>): Promise<T> {
  const lock = `${dir}.lock`;
  mkdirSync(path.dirname(lock), { recursive: true });
  for (let waited = 0; ; waited += 1000) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holders: number[] = [];
      try {
        holders = readFileSync(path.join(lock, 'pid'), 'utf8').split(/\s+/).filter(Boolean).map(Number);
      } catch {
        /* being written, or left empty by a holder that died at once */
      }
      // The holder and its npm: an npm whose parent was killed goes on writing into the cache.
      if ((holders.length > 0 && !holders.some(alive)) || (holders.length === 0 && waited >= 10_000))
        rmSync(lock, { recursive: true, force: true });
      else if (waited > 15 * 60_000) throw new Error(`${lock} is held by ${holders.join(', ')} for over 15 minutes`);
      else await sleep(1000);
    }
  }
  const addHolder = (pid: number) => writeFileSync(path.join(lock, 'pid'), `${process.pid} ${pid}`);
  try {
    return await fn(addHolder);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Install the pinned agents unless a complete install is already in the cache; resolves to their binaries. */
export function installAgents(log: (line: string) => void = () => {}): Promise<InstalledAgents> {
  installing ??= withLock(agentsDir(), (addHolder) => doInstall(log, addHolder)).finally(() => (installing = null));
  return installing;
}

async function doInstall(log: (line: string) => void, addHolder: (pid: number) => void): Promise<InstalledAgents> {
  const dir = agentsDir();
  const marker = path.join(dir, MARKER);
  const wanted = PACKAGES.join(' ');
  const bins = binaries(dir);
  const complete =
    existsSync(marker) &&
    readFileSync(marker, 'utf8').trim() === wanted &&
    existsSync(bins.claude) &&
    existsSync(bins.codex);
  if (!complete) {
    log(`installing ${wanted} into ${dir} (this takes a few minutes the first time)`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'switchyard-agents', private: true, description: 'cache of the e2e agents' }, null, 2),
    );
    const npm = run(
      'npm',
      ['install', '--prefix', dir, '--no-audit', '--no-fund', '--include=optional', '--loglevel=error', ...PACKAGES],
      // An install of a few hundred MB; bounded so a stuck registry fails the test instead of hanging it.
      {
        timeout: 14 * 60_000,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, npm_config_update_notifier: 'false' },
      },
    );
    if (npm.child.pid !== undefined) addHolder(npm.child.pid);
    await npm;
  }
  // The platform binaries are optional dependencies: a missing one shows here, not at the agent run.
  const versions = { claude: await versionOf(bins.claude), codex: await versionOf(bins.codex) };
  if (!versions.claude.includes(AGENT_VERSIONS.claudeCode) || !versions.codex.includes(AGENT_VERSIONS.codex))
    throw new Error(`installed agents report ${JSON.stringify(versions)}, expected ${wanted}`);
  if (!complete) writeFileSync(marker, `${wanted}\n`);
  return { dir, ...bins, versions };
}

if (require.main === module) {
  installAgents((line) => console.log(line)).then(
    (agents) => console.log(JSON.stringify(agents, null, 2)),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
