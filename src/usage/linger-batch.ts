/**
 * Items added close together, handed on as one batch: what arrives within `lingerMs` of the first
 * waiting item (or, with 0, in the same turn of the event loop) goes together, and a full batch
 * (`max`) goes at once. The usage outbox sends each batch as one XADD, so under load a few dozen
 * requests share one Redis command, its reply and its promise.
 * @module
 */

/** An item waiting for its batch, and how to tell its adder the batch was handled. */
export interface Waiting<T> {
  item: T;
  resolve: () => void;
}

/** Batches items for `send`, which resolves each item's `resolve` once it has handled it. */
export class LingerBatch<T> {
  private waiting: Array<Waiting<T>> = [];
  /** The linger timer of the waiting items, while one is set. */
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly max: number,
    private readonly lingerMs: number,
    private readonly send: (batch: Array<Waiting<T>>) => Promise<void>,
  ) {}

  /** Add an item; resolves once `send` has handled its batch. */
  add(item: T): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push({ item, resolve });
      if (this.waiting.length >= this.max) this.sendNow();
      else if (this.waiting.length === 1) {
        if (this.lingerMs > 0) this.timer = setTimeout(this.sendNow, this.lingerMs);
        else setImmediate(this.sendNow);
      }
    });
  }

  /** Send what is waiting without waiting for the linger (shutdown); resolves once handled. */
  flush(): Promise<void> {
    return this.sendWaiting();
  }

  /** The items still waiting for their batch. */
  items(): T[] {
    return this.waiting.map((w) => w.item);
  }

  get length(): number {
    return this.waiting.length;
  }

  private readonly sendNow = (): void => {
    void this.sendWaiting();
  };

  private sendWaiting(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.waiting;
    if (batch.length === 0) return Promise.resolve();
    this.waiting = [];
    return this.send(batch);
  }
}
