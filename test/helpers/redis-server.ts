/**
 * A throw-away redis-server on a free loopback port (no persistence, its files in a temp dir),
 * for tests that need a Redis of their own: a low `maxmemory`, another eviction policy, a second
 * Redis. Never the shared one on 6379, whose settings every test file relies on. `stop()` kills it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePorts } from './ports';
import { killChildren } from './kill-children';
import { until } from './eventually';

/** A running redis-server. */
export interface LocalRedis {
  port: number;
  url: string;
  /** A plain client for the test's own checks (INFO, CONFIG SET, SCAN). */
  admin: Redis;
  stop(): Promise<void>;
}

/** Resolves once a fresh connection to `port` satisfies `ready`; throws after `deadline` (epoch ms). */
export async function untilRedisAnswers(
  port: number,
  deadline: number,
  ready: (client: Redis) => Promise<boolean>,
): Promise<void> {
  const answers = async () => {
    const client = new Redis({
      host: '127.0.0.1',
      port,
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await ready(client);
    } catch {
      return false; // not up yet
    } finally {
      client.disconnect();
    }
  };
  await until(`redis on ${port} ready`, answers, { timeoutMs: Math.max(0, deadline - Date.now()), everyMs: 50 });
}

/** Start a redis-server with `args` added (e.g. `['--maxmemory-policy', 'noeviction']`). */
export async function startLocalRedis(args: string[] = []): Promise<LocalRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-redis-'));
  const children: ChildProcess[] = [];
  let admin: Redis | undefined;
  const stop = async () => {
    admin?.disconnect();
    await killChildren(children);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [port] = (await freePorts(1)) as [number];
    children.push(
      spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...args],
        { stdio: 'ignore' },
      ),
    );
    await untilRedisAnswers(port, Date.now() + 20_000, async (c) => (await c.ping()) === 'PONG');
    admin = new Redis({ host: '127.0.0.1', port });
    return { port, url: `redis://127.0.0.1:${port}`, admin, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A field of `INFO memory` (bytes). */
export async function memoryInfo(admin: Redis, field: 'used_memory' | 'maxmemory'): Promise<number> {
  const info = await admin.info('memory');
  return Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(info)?.[1]);
}
