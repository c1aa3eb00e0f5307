/**
 * Runs the real coding agents (installed by ./install.ts) once, non-interactively and offline but
 * for the one base URL they are pointed at: each in a fresh temp home (no login, no user config),
 * with the environment built from scratch (no key of the machine's leaks in), bounded by a timeout
 * after which the process group is killed. Used by the capture script and the e2e test.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What an agent run ended with. */
export interface AgentRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Children still running, so a test can kill them when it ends. */
const running = new Set<ChildProcess>();

/** Kill (SIGKILL, the whole process group) every agent still running. */
export function killAgents(): void {
  for (const child of running) killGroup(child);
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** The environment every agent run starts from: the system's path and locale, nothing else of the machine. */
function baseEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    TMPDIR: path.join(home, 'tmp'),
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    // Neither agent may look for a proxy of the machine's: the base URL is on loopback.
    NO_PROXY: '127.0.0.1,localhost',
  };
}

function spawnBounded(
  file: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<AgentRun> {
  return new Promise((resolve, reject) => {
    // Its own process group, so the timeout kills whatever the agent started too (Codex's shell).
    const child = spawn(file, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      running.delete(child);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** Claude Code settings for one run. */
export interface ClaudeRun {
  /** The `claude` executable. */
  bin: string;
  /** What ANTHROPIC_BASE_URL is (the SDK appends `/v1/messages`): the gateway's `…/api`. */
  baseUrl: string;
  token: string;
  /** How the token is sent: `bearer` (ANTHROPIC_AUTH_TOKEN → Authorization: Bearer, the default) or `x-api-key` (ANTHROPIC_API_KEY). */
  auth?: 'bearer' | 'x-api-key';
  model: string;
  /** The model of its background calls (titles, summaries …); default `model`. */
  smallModel?: string;
  prompt: string;
  /** The working directory (the file to read is in it); the temp home is made under `home`. */
  cwd: string;
  home: string;
  maxTurns?: number;
  timeoutMs?: number;
  extraArgs?: string[];
}

/** The environment Claude Code needs to run headless with no login against `baseUrl`. */
export function claudeEnv(run: Pick<ClaudeRun, 'baseUrl' | 'token' | 'auth' | 'model' | 'smallModel' | 'home'>) {
  const small = run.smallModel ?? run.model;
  const config = path.join(run.home, 'claude-config');
  mkdirSync(path.join(run.home, 'tmp'), { recursive: true });
  mkdirSync(config, { recursive: true });
  return {
    ...baseEnv(run.home),
    CLAUDE_CONFIG_DIR: config,
    ANTHROPIC_BASE_URL: run.baseUrl,
    // ANTHROPIC_AUTH_TOKEN is sent as Authorization: Bearer, ANTHROPIC_API_KEY as x-api-key.
    ...(run.auth === 'x-api-key' ? { ANTHROPIC_API_KEY: run.token } : { ANTHROPIC_AUTH_TOKEN: run.token }),
    ANTHROPIC_MODEL: run.model,
    ANTHROPIC_SMALL_FAST_MODEL: small,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: small,
    ANTHROPIC_DEFAULT_SONNET_MODEL: run.model,
    ANTHROPIC_DEFAULT_OPUS_MODEL: run.model,
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_BUG_COMMAND: '1',
    DISABLE_COST_WARNINGS: '1',
    DISABLE_NON_ESSENTIAL_MODEL_CALLS: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_DISABLE_TERMINAL_TITLE: '1',
    // No retries with backoff: a gateway error shows at once instead of after minutes.
    CLAUDE_CODE_MAX_RETRIES: '0',
    API_TIMEOUT_MS: '60000',
  };
}

/** `claude -p <prompt> --max-turns N --model M` in `cwd`. */
export function runClaude(run: ClaudeRun): Promise<AgentRun> {
  const args = [
    '-p',
    run.prompt,
    '--max-turns',
    String(run.maxTurns ?? 3),
    '--model',
    run.model,
    '--output-format',
    'text',
    ...(run.extraArgs ?? []),
  ];
  return spawnBounded(run.bin, args, { cwd: run.cwd, env: claudeEnv(run), timeoutMs: run.timeoutMs ?? 120_000 });
}

/** Codex settings for one run. */
export interface CodexRun {
  /** The `codex` launcher (bin/codex.js, run with this Node). */
  bin: string;
  /** The provider's base URL (Codex appends `/responses`): the gateway's `…/api/v1`. */
  baseUrl: string;
  token: string;
  model: string;
  prompt: string;
  cwd: string;
  home: string;
  timeoutMs?: number;
  extraArgs?: string[];
}

/** The variable Codex reads the provider's key from (`env_key`). */
export const CODEX_KEY_VARIABLE = 'SWITCHYARD_API_KEY';

/** A CODEX_HOME with a config.toml whose only provider is the gateway (Responses wire), and its env. */
export function codexEnv(run: Pick<CodexRun, 'baseUrl' | 'token' | 'model' | 'home'>) {
  const codexHome = path.join(run.home, 'codex-home');
  mkdirSync(path.join(run.home, 'tmp'), { recursive: true });
  mkdirSync(codexHome, { recursive: true });
  const toml = [
    `model = ${JSON.stringify(run.model)}`,
    'model_provider = "switchyard"',
    'approval_policy = "never"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.switchyard]',
    'name = "Switchyard"',
    `base_url = ${JSON.stringify(run.baseUrl)}`,
    'wire_api = "responses"',
    `env_key = ${JSON.stringify(CODEX_KEY_VARIABLE)}`,
    // No retries: a gateway error shows at once.
    'request_max_retries = 0',
    'stream_max_retries = 0',
    'stream_idle_timeout_ms = 60000',
    '',
    '[analytics]',
    'enabled = false',
    '',
  ].join('\n');
  writeFileSync(path.join(codexHome, 'config.toml'), toml);
  return { ...baseEnv(run.home), CODEX_HOME: codexHome, [CODEX_KEY_VARIABLE]: run.token, RUST_LOG: 'error' };
}

/** `codex exec --skip-git-repo-check <prompt>` in `cwd`. */
export function runCodex(run: CodexRun): Promise<AgentRun> {
  const args = [
    run.bin,
    'exec',
    '--skip-git-repo-check',
    '--color',
    'never',
    '--model',
    run.model,
    ...(run.extraArgs ?? []),
    run.prompt,
  ];
  return spawnBounded(process.execPath, args, {
    cwd: run.cwd,
    env: codexEnv(run),
    timeoutMs: run.timeoutMs ?? 120_000,
  });
}
