/**
 * A throw-away local Redis Cluster for one test file: three `redis-server --cluster-enabled yes`
 * processes on free loopback ports (no persistence, config files in a temp dir), joined with
 * `redis-cli --cluster create`, stopped and removed by `stop()`. Absent `redis-server` the suite
 * is skipped with the reason printed (and fails under REQUIRE_SERVICES=1, as in CI).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { killChildren } from './kill-children';
import { freePorts } from './ports';
import { untilRedisAnswers } from './redis-server';
import { until } from './eventually';

/** Why a local cluster cannot be started here, or null when it can. */
export function clusterUnavailable(): string | null {
  for (const bin of ['redis-server', 'redis-cli']) {
    const probe = spawnSync(bin, ['--version'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) return `${bin} not found on PATH (a local Redis Cluster cannot be started)`;
  }
  return null;
}

/** Register the skip (printed) or, with REQUIRE_SERVICES=1, a failing test; true when the suite can run. */
export function requireClusterBinaries(): boolean {
  const reason = clusterUnavailable();
  if (!reason) return true;
  if (process.env.REQUIRE_SERVICES === '1') {
    test('local Redis servers (Cluster, Sentinel) can be started', () => {
      throw new Error(reason);
    });
  } else test.skip(`local Redis Cluster / Sentinel cases are skipped: ${reason}`, () => undefined);
  return false;
}

/** A running cluster. */
export interface LocalRedisCluster {
  /** `127.0.0.1:<port>` of each primary. */
  nodes: string[];
  stop(): Promise<void>;
}

/** Wait until every node reports `cluster_state:ok` (slots assigned and agreed). */
async function waitForClusterOk(ports: number[], deadline: number): Promise<void> {
  for (const port of ports) {
    const client = new Redis({ host: '127.0.0.1', port });
    client.on('error', () => undefined);
    try {
      const ok = async () => /cluster_state:ok/.test(await client.cluster('INFO'));
      await until(`cluster node ${port} at cluster_state:ok`, ok, {
        timeoutMs: Math.max(0, deadline - Date.now()),
        everyMs: 50,
      });
    } finally {
      client.disconnect();
    }
  }
}

/** Start three primaries (no replicas) and join them into one cluster. */
export async function startLocalRedisCluster(size = 3): Promise<LocalRedisCluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'switchyard-cluster-'));
  const children: ChildProcess[] = [];
  const stop = async () => {
    await killChildren(children);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ports = await freePorts(size);
    for (const port of ports) {
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          path.join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '2000',
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
          '--dir',
          dir,
        ],
        { stdio: 'ignore' },
      );
      children.push(child);
    }
    const deadline = Date.now() + 20_000;
    await Promise.all(ports.map((p) => untilRedisAnswers(p, deadline, async (c) => (await c.ping()) === 'PONG')));
    const nodes = ports.map((p) => `127.0.0.1:${p}`);
    const created = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'],
      { encoding: 'utf8', timeout: 20_000 },
    );
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stderr || created.stdout}`);
    await waitForClusterOk(ports, deadline);
    return { nodes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
