/**
 * Stops the server processes a test helper started (local Redis Cluster nodes, a Sentinel and
 * its primary): SIGKILL each that is still running and wait until all have exited.
 */
import type { ChildProcess } from 'node:child_process';

export async function killChildren(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}
