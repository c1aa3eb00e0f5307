/**
 * A gateway replica as a real process: `src/main.ts` run by Node with the suite's TypeScript
 * loader (the same SWC transform Jest uses, so no build step and never a stale `dist/`), on free
 * loopback ports, with exactly the environment given (nothing inherited but PATH and HOME, so a
 * CI job's own DATABASE_URL or provider keys never leak in). Resolves once `/healthz` answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { TS_LOADER } from './services';
import { freePorts } from './ports';
import { until } from './eventually';

const ROOT = path.resolve(__dirname, '..', '..');

/** A running replica. */
export interface GatewayProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Last lines of its output (for failure messages). */
  tail: string[];
  /** Whether the process is still running. */
  alive(): boolean;
  /** SIGKILL, resolved once it has exited. */
  kill(): Promise<void>;
  /** SIGTERM (graceful drain), SIGKILL after `killAfterMs`. */
  stop(killAfterMs?: number): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Start one replica with `env` (PORT, METRICS_PORT and HOST are chosen here). A free port can be
 * taken by another test's socket between the probe and the replica's listen, so a start that dies
 * of EADDRINUSE is tried again on new ports.
 */
export async function spawnGatewayProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<GatewayProcess> {
  for (let tries = 1; ; tries++) {
    try {
      return await spawnOnce(env, timeoutMs);
    } catch (err) {
      if (tries >= 5 || !(err instanceof PortTaken)) throw err;
    }
  }
}

class PortTaken extends Error {}

async function spawnOnce(env: Record<string, string>, timeoutMs: number): Promise<GatewayProcess> {
  const [port, metricsPort] = (await freePorts(2)) as [number, number];
  const child = spawn(process.execPath, ['-r', TS_LOADER, path.join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line) tail.push(line.slice(0, 400));
    while (tail.length > 30) tail.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const origin = `http://127.0.0.1:${port}`;
  const handle: GatewayProcess = {
    child,
    origin,
    tail,
    alive: () => child.exitCode === null && child.signalCode === null,
    kill: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
    stop: async (killAfterMs = 5000) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      child.kill('SIGTERM');
      await exited(child);
      clearTimeout(timer);
    },
  };
  const healthy = async () => {
    if (!handle.alive()) {
      const why = `gateway exited during startup:\n${tail.join('\n')}`;
      throw tail.some((l) => l.includes('EADDRINUSE')) ? new PortTaken(why) : new Error(why);
    }
    return fetch(`${origin}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
  };
  try {
    await until(`/healthz of the gateway on ${origin}`, healthy, { timeoutMs, everyMs: 50 });
  } catch (err) {
    if (!handle.alive()) throw err;
    await handle.kill();
    throw new Error(`gateway not ready after ${timeoutMs} ms:\n${tail.join('\n')}`);
  }
  return handle;
}
