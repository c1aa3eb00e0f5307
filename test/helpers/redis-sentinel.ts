/**
 * A throw-away Redis primary watched by one Sentinel (`redis-server --sentinel`), both on free
 * loopback ports with their files in a temp dir, stopped and removed by `stop()`. Enough to
 * check the gateway finds the primary through the Sentinel; not a failover rig.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePorts } from './ports';
import { killChildren } from './kill-children';
import { untilRedisAnswers } from './redis-server';

/** A running primary and its Sentinel. */
export interface LocalSentinel {
  /** `127.0.0.1:<port>` of the Sentinel. */
  sentinel: string;
  /** The primary group name the Sentinel monitors. */
  name: string;
  primaryPort: number;
  stop(): Promise<void>;
}

/** Start a primary and a Sentinel monitoring it as `name`. */
export async function startLocalSentinel(name = 'sy-primary'): Promise<LocalSentinel> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-sentinel-'));
  const children: ChildProcess[] = [];
  const stop = async () => {
    await killChildren(children);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [primaryPort, sentinelPort] = (await freePorts(2)) as [number, number];
    children.push(
      spawn(
        'redis-server',
        ['--port', String(primaryPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: 'ignore' },
      ),
    );
    const conf = path.join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${sentinelPort}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 1`,
        `sentinel down-after-milliseconds ${name} 5000`,
        '',
      ].join('\n'),
    );
    children.push(spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' }));
    const deadline = Date.now() + 20_000;
    await untilRedisAnswers(primaryPort, deadline, async (c) => (await c.ping()) === 'PONG');
    await untilRedisAnswers(sentinelPort, deadline, async (c) => {
      const addr = (await c.call('SENTINEL', 'get-master-addr-by-name', name)) as string[] | null;
      return Array.isArray(addr) && Number(addr[1]) === primaryPort;
    });
    return { sentinel: `127.0.0.1:${sentinelPort}`, name, primaryPort, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
