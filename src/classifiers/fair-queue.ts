/**
 * A bounded queue per key (per organization, for tagging), served in turn. One FIFO let a tenant
 * that flooded it fill it (so others' requests were dropped) and made everyone else wait behind
 * its backlog; here a key holds at most `perKey` items, and an item waits for at most one item of
 * each other key with work queued.
 * @module
 */

/** What {@link FairQueue.push} did: queued, or refused because the whole queue or the key's share is full. */
export type PushOutcome = 'queued' | 'full' | 'key_full';

/** Per-key FIFOs served round-robin, each bounded, with a bound on all of them together. */
export class FairQueue<T> {
  /** Keys with queued items, in serving order (a Map keeps insertion order). */
  private readonly queues = new Map<string, T[]>();
  private total = 0;

  /**
   * @param perKey - items one key may have queued
   * @param max - items queued for all keys together (memory)
   */
  constructor(
    private readonly perKey: number,
    private readonly max: number,
  ) {}

  /** Items queued for all keys. */
  get size(): number {
    return this.total;
  }

  /** Queue `item` for `key`; a key not queued yet is served after every key already waiting. */
  push(key: string, item: T): PushOutcome {
    if (this.total >= this.max) return 'full';
    const queue = this.queues.get(key);
    if (queue && queue.length >= this.perKey) return 'key_full';
    if (queue) queue.push(item);
    else this.queues.set(key, [item]);
    this.total++;
    return 'queued';
  }

  /** The next key's oldest item (that key then goes to the back of the turn), or undefined when empty. */
  shift(): T | undefined {
    const next = this.queues.entries().next();
    if (next.done) return undefined;
    const [key, queue] = next.value;
    const item = queue.shift()!;
    this.queues.delete(key);
    if (queue.length > 0) this.queues.set(key, queue);
    this.total--;
    return item;
  }
}
