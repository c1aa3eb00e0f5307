/**
 * The embedded outbox (no Redis): usage events wait in a bounded in-process queue and are
 * inserted in batches (one idempotent multi-row INSERT each). A database outage keeps them queued and retried with backoff; when the
 * queue is full, `record` waits for room (backpressure), so nothing is dropped and memory stays
 * bounded. Events still queued when the process dies are lost, which is why production runs
 * the Redis Stream outbox.
 * @module
 */
import { BoundedQueue } from './bounded-queue';
import { OutboxRecorder, type OutboxDeps, type OutboxOptions } from './outbox';
import type { UsageEvent } from './types';

/** In-process usage outbox. */
export class MemoryOutbox extends OutboxRecorder {
  private readonly queue: BoundedQueue<UsageEvent>;

  constructor(deps: OutboxDeps, options: OutboxOptions) {
    super(deps, options);
    this.queue = new BoundedQueue(options.maxQueued);
  }

  /** Queue the event (waits while the queue is full); written within one flush interval. */
  async record(event: UsageEvent): Promise<void> {
    await this.queue.push(event);
    this.deps.metrics.usageEventsRecorded.inc({ outbox: 'memory' });
    if (this.queue.length >= this.options.batchSize) void this.drain();
  }

  depth(): Promise<number> {
    return Promise.resolve(this.queue.length);
  }

  pending(): Promise<UsageEvent[]> {
    return Promise.resolve(this.queue.peek(this.queue.length));
  }

  protected async drainBatch(): Promise<number> {
    const batch = this.queue.peek(this.options.batchSize);
    if (batch.length === 0) return 0;
    await this.write(batch);
    this.queue.remove(batch.length);
    return batch.length;
  }
}
