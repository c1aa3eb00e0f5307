/**
 * The in-process analytics maintenance job: every `analytics.maintenanceIntervalMs`, refresh the
 * hourly rollup and apply raw-row retention. Both run under advisory locks, so any number of
 * replicas may run it (one does the work at a time) and embedded PGlite runs it the same way;
 * a Kubernetes CronJob can run `switchyard analytics-maintain` instead (interval 0).
 * @module
 */
import type { Database } from '../store/db';
import type { Logger } from '../observability/logger';
import { errorFields } from '../observability/error-fields';
import { applyRetention, refreshRollup } from './rollup';

/** One maintenance pass: rollup refresh, then retention. */
export async function runMaintenance(
  db: Database,
  now: number,
  retentionDays: number,
): Promise<{ hours: number; deleted: number }> {
  const hours = await refreshRollup(db, now);
  const deleted = await applyRetention(db, now, retentionDays);
  return { hours, deleted };
}

/** Start the periodic job; returns a stop function that waits for a pass in progress. */
export function startMaintenance(
  db: Database,
  logger: Logger,
  opts: { intervalMs: number; retentionDays: number; clock: () => number },
): () => Promise<void> {
  if (opts.intervalMs <= 0) return () => Promise.resolve();
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = runMaintenance(db, opts.clock(), opts.retentionDays)
      .then((r) => {
        logger.info('analytics maintenance', { rollup_hours: r.hours, retention_deleted: r.deleted });
      })
      .catch((err: unknown) => {
        logger.error('analytics maintenance failed', { error: errorFields(err) });
      })
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, opts.intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
