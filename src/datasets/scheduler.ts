/**
 * Runs the rankings rollup in-process every `intervalMs` (first run right after start). Timers
 * are unref'd, so they never keep a process alive, and cleared by `stop`, which also waits for a
 * run in progress. A failed run is logged and counted, and the next one comes as usual.
 * @module
 */
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import { errorFields } from '../observability/error-fields';

/** Schedules a callback; tests pass a fake to run the schedule by hand. */
export type Timer = (fn: () => void, ms: number) => { cancel(): void; hasRef?(): boolean };

/** Node's timer, unref'd. */
export const nodeTimer: Timer = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return { cancel: () => clearTimeout(t), hasRef: () => t.hasRef() };
};

/** The in-process rollup schedule. */
export class RollupScheduler {
  private timer: { cancel(): void } | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly run: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly schedule: Timer = nodeTimer,
  ) {}

  /** Start (no-op when the interval is 0 or already started). */
  start(): void {
    if (this.intervalMs <= 0 || !this.stopped) return;
    this.stopped = false;
    this.timer = this.schedule(() => this.tick(), 0);
  }

  private tick(): void {
    this.timer = null;
    const started = performance.now();
    this.running = this.run()
      .then(
        () => this.metrics.rankingsRollups.inc({ outcome: 'ok' }),
        (err: unknown) => {
          this.metrics.rankingsRollups.inc({ outcome: 'failed' });
          this.logger.error('rankings rollup failed', { error: errorFields(err) });
        },
      )
      .finally(() => {
        this.metrics.rankingsRollupDuration.observe({}, (performance.now() - started) / 1000);
        this.running = null;
        if (!this.stopped) this.timer = this.schedule(() => this.tick(), this.intervalMs);
      });
  }

  /** Stop scheduling and wait for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    await this.running;
  }
}
