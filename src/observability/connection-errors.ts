/**
 * Connection errors of the stores (ioredis and pg `error` events: refused, reset, timed out) as
 * log lines an operator can read and a metric an alert can use. A store that is down emits one
 * per reconnect attempt and per pooled connection, so lines are rate-limited per store: at most
 * one per interval, saying how many were left out since the last; the metric counts them all.
 * @module
 */
import type { Logger } from './logger';
import type { Metrics } from './metrics';

/** The stores whose connections are watched (the metric's `store` label). */
export type Store = 'redis' | 'postgres';

/** Options for {@link ConnectionErrorLog}. */
export interface ConnectionErrorLogOptions {
  /** At most one line per store per this many milliseconds; default 10 s. */
  intervalMs?: number;
  /** Milliseconds clock; tests inject one. */
  now?: () => number;
}

/** Default {@link ConnectionErrorLogOptions.intervalMs}. */
export const CONNECTION_ERROR_LOG_INTERVAL_MS = 10_000;

/** Rate-limited warnings and a counter for store connection errors. */
export class ConnectionErrorLog {
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly last = new Map<Store, { at: number; suppressed: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    opts: ConnectionErrorLogOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? CONNECTION_ERROR_LOG_INTERVAL_MS;
    this.now = opts.now ?? Date.now;
  }

  /** Count `err` from `store`'s connection and log it unless a line for that store was written within the interval. */
  report(store: Store, err: unknown): void {
    this.metrics.storeConnectionErrors.inc({ store });
    const now = this.now();
    const seen = this.last.get(store);
    if (seen && now - seen.at < this.intervalMs) {
      seen.suppressed++;
      return;
    }
    const suppressed = seen?.suppressed ?? 0;
    this.last.set(store, { at: now, suppressed: 0 });
    this.logger.warn(`${store} connection error`, {
      store,
      err,
      suppressed_since_last: suppressed,
      interval_ms: this.intervalMs,
    });
  }

  /** A handler for one store's `error` events. */
  handler(store: Store): (err: Error) => void {
    return (err) => this.report(store, err);
  }
}
