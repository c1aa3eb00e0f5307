/**
 * Items added close together, handed on as one batch: what arrives within `lingerMs` of the first
 * waiting item (or, with 0, in the same turn of the event loop) goes together, and a full batch
 * (`max`) goes at once. The usage outbox sends each batch as one XADD, so under load many
 * requests share one Redis command, its reply and its promise.
 * @module
 */

/** The items waiting to be sent, and the promise their adders hold. */
interface Pending<T> {
  items: T[];
  sent: Promise<void>;
  settle: (result: Promise<void>) => void;
}

/** Batches items for `send`; each `add` resolves (or rejects) as its batch's `send` does. */
export class LingerBatch<T> {
  private waiting: Pending<T> | null = null;
  /** The linger timer of the waiting items, while one is set. */
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly max: number,
    private readonly lingerMs: number,
    private readonly send: (items: T[]) => Promise<void>,
  ) {}

  /** Add an item; settles once `send` has handled its batch. */
  add(item: T): Promise<void> {
    let pending = this.waiting;
    if (!pending) {
      let settle!: Pending<T>['settle'];
      const sent = new Promise<void>((resolve) => {
        settle = resolve;
      });
      pending = this.waiting = { items: [], sent, settle };
      if (this.lingerMs > 0) this.timer = setTimeout(this.sendNow, this.lingerMs);
      else setImmediate(this.sendNow);
    }
    pending.items.push(item);
    if (pending.items.length >= this.max) this.sendNow();
    return pending.sent;
  }

  /** Send what is waiting without waiting for the linger (shutdown); settles once handled. */
  flush(): Promise<void> {
    return this.sendWaiting();
  }

  /** The items still waiting for their batch. */
  items(): T[] {
    return this.waiting ? [...this.waiting.items] : [];
  }

  get length(): number {
    return this.waiting?.items.length ?? 0;
  }

  private readonly sendNow = (): void => {
    void this.sendWaiting().catch(() => undefined); // the adders hold the outcome
  };

  private sendWaiting(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const pending = this.waiting;
    if (!pending) return Promise.resolve();
    this.waiting = null;
    pending.settle(this.send(pending.items));
    return pending.sent;
  }
}
