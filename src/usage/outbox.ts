/**
 * What both usage outboxes share: options, the batch write into `generations`, and the drain
 * loop (one drain at a time, on a timer and when a batch fills, paced by {@link Backoff} after a
 * failure). Subclasses say where pending events live (a Redis Stream or process memory) by
 * implementing `drainBatch` and `depth`.
 * @module
 */
import type { Queryable } from '../store/db';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import { insertUsageEvents, insertUsageJson } from './direct-recorder';
import { Backoff } from './backoff';
import type { UsageEvent, UsageRecorder } from './types';

/** Tuning of an outbox; the first five come from config `usage.*`. */
export interface OutboxOptions {
  /** Events per INSERT; a full batch is written at once, a partial one on the next tick. */
  batchSize: number;
  /** Timer period of the background drain. */
  flushIntervalMs: number;
  /** Bound of any in-process buffer (record waits when it is full). */
  maxQueued: number;
  /** Redis: idle time after which another consumer's unacknowledged entries are reclaimed. */
  claimIdleMs: number;
  /** Cap of the retry backoff. */
  retryMaxMs: number;
  /** First retry delay; default 100 ms. */
  retryInitialMs?: number;
  /** How long `flush()` keeps retrying before it gives up; default 10 s. */
  flushTimeoutMs?: number;
}

/** What an outbox writes with and reports to. */
export interface OutboxDeps {
  db: Queryable;
  metrics: Metrics;
  logger: Logger;
}

/**
 * Whether a database error is about the data (SQLSTATE class 22 data exception or 23 integrity
 * violation) rather than the database being unavailable; only the latter is worth retrying as is.
 */
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23]/.test(code);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Base class of the usage outboxes. */
export abstract class OutboxRecorder implements UsageRecorder {
  protected readonly backoff: Backoff;
  private readonly timer: NodeJS.Timeout;
  private running: Promise<boolean> | undefined;

  constructor(
    protected readonly deps: OutboxDeps,
    protected readonly options: OutboxOptions,
  ) {
    this.backoff = new Backoff(options.retryInitialMs ?? 100, options.retryMaxMs);
    this.timer = setInterval(() => void this.drain(), options.flushIntervalMs);
    this.timer.unref();
    deps.metrics.setUsageDepthSource(() => this.depth());
  }

  /** Accept one event; see the subclass for when it is durable. */
  abstract record(event: UsageEvent): Promise<void>;

  /** Events accepted but not yet written. */
  abstract depth(): Promise<number>;

  /** Events accepted but perhaps not yet written (see {@link UsageRecorder.pending}). */
  abstract pending(): Promise<UsageEvent[]>;

  /**
   * Write at most one batch; resolve to how many events it took care of (0 = nothing left to
   * do), reject if the write failed (the events stay pending and are retried). `flushing`: a
   * flush is emptying the outbox, so work that is otherwise paced (a sweep) is due now.
   */
  protected abstract drainBatch(flushing: boolean): Promise<number>;

  /**
   * Insert a batch into `generations` (idempotent on id) and count it. A batch the database
   * refuses because of its *data* (not an outage) is retried event by event, so one malformed
   * record cannot block every record behind it forever; the ones still refused are handed to
   * {@link rejected} instead of being retried.
   */
  protected async write(events: UsageEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.writeJson(JSON.stringify(events), events.length, () => events);
  }

  /**
   * {@link write} for a batch already encoded as a JSON array of `count` events; `decode` gives
   * the events themselves, needed only when the batch is refused for its data.
   */
  protected async writeJson(json: string, count: number, decode: () => UsageEvent[]): Promise<void> {
    try {
      await insertUsageJson(this.deps.db, json);
    } catch (err) {
      this.deps.metrics.usageWriteFailures.inc({ stage: 'insert' });
      if (!isDataError(err)) throw err;
      await this.writeOneByOne(decode());
      return;
    }
    this.deps.metrics.usageBatchesWritten.inc();
    this.deps.metrics.usageEventsWritten.inc(count);
  }

  private async writeOneByOne(events: UsageEvent[]): Promise<void> {
    for (const event of events) {
      try {
        await insertUsageEvents(this.deps.db, [event]);
        this.deps.metrics.usageEventsWritten.inc();
      } catch (err) {
        if (!isDataError(err)) throw err;
        this.deps.metrics.usageWriteFailures.inc({ stage: 'rejected' });
        await this.rejected(event, err as Error);
      }
    }
    this.deps.metrics.usageBatchesWritten.inc();
  }

  /**
   * An event the database refuses for its content. Logged with its id (never dropped silently);
   * the Redis outbox also keeps it in a dead-letter stream for inspection.
   */
  protected rejected(event: UsageEvent, err: Error): Promise<void> {
    this.deps.logger.error('usage record refused by the database; not retried', { generation_id: event.id, err });
    return Promise.resolve();
  }

  /** Start a drain unless one is running or the backoff says wait (timer and full batches). */
  protected drain(): Promise<boolean> {
    if (this.running) return this.running;
    if (!this.backoff.ready()) return Promise.resolve(false);
    return this.startDrain();
  }

  private startDrain(untilEmpty = false): Promise<boolean> {
    const run = this.drainAll(untilEmpty).finally(() => {
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  /**
   * Batches while they come full (or, `untilEmpty`, until nothing is left); true when done, false
   * after a failure (retried later). A partial batch ends a timer or batch-full drain: what
   * arrives meanwhile waits for the next full batch or tick instead of being chased with an
   * insert of a few rows each (at 500 requests/s that was a stream of tiny inserts, each a
   * commit: three times the database CPU per record, and consumer work between requests).
   */
  private async drainAll(untilEmpty: boolean): Promise<boolean> {
    const enough = untilEmpty ? 1 : this.options.batchSize;
    try {
      while ((await this.drainBatch(untilEmpty)) >= enough) {
        // keep going: another batch may be waiting
      }
      this.backoff.succeed();
      return true;
    } catch (err) {
      const retryInMs = this.backoff.fail();
      this.deps.logger.warn('usage write failed; events kept for retry', { err, retry_in_ms: retryInMs });
      return false;
    }
  }

  /**
   * Write everything pending now, retrying through failures until `flushTimeoutMs`; for shutdown
   * and tests. Rejects if it could not finish (the events stay pending; with Redis they survive).
   */
  async flush(): Promise<void> {
    const deadline = Date.now() + (this.options.flushTimeoutMs ?? 10_000);
    for (;;) {
      if (this.running) await this.running;
      if (await this.startDrain(true)) return;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`usage flush timed out with ${await this.depth().catch(() => -1)} events pending`);
      await sleep(Math.min(left, Math.max(5, this.backoff.waitMs())));
    }
  }

  /** Stop the timer and wait for a running drain; call {@link flush} first to write what is left. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    if (this.running) await this.running;
  }
}
