/**
 * A FIFO with a hard bound for usage events held in process memory. The policy when full is
 * backpressure, never loss: `push` waits until a write frees room, so a long database outage
 * slows the callers that record usage instead of dropping records or growing without limit.
 * @module
 */

/** Bounded FIFO whose `push` waits while the queue is full. */
export class BoundedQueue<T> {
  private items: T[] = [];
  private readonly waiters: Array<() => void> = [];

  /** @param max - most items held at once (config `usage.maxQueued`) */
  constructor(private readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new Error('BoundedQueue: max must be a positive integer');
  }

  get length(): number {
    return this.items.length;
  }

  /** Callers currently waiting for room (a sign that writes are falling behind). */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Append `item`, waiting first while the queue is full. */
  async push(item: T): Promise<void> {
    while (this.items.length >= this.max) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    this.items.push(item);
  }

  /** The oldest `n` items, left in place until {@link remove} confirms they were written. */
  peek(n: number): T[] {
    return this.items.slice(0, n);
  }

  /** Drop the oldest `n` items (after they were written) and wake callers waiting for room. */
  remove(n: number): void {
    this.items.splice(0, n);
    for (let freed = n; freed > 0 && this.waiters.length > 0; freed -= 1) this.waiters.shift()?.();
  }
}
