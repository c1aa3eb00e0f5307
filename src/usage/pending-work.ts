/**
 * Bookkeeping still running after an answer was sent (budget settles, usage records), counted so
 * that graceful shutdown can wait for all of it before the pools close. One per inference service.
 * @module
 */

/** Counts unfinished work and wakes whoever waits for none to be left. */
export class PendingWork {
  private unfinished = 0;
  private whenIdle: Array<() => void> = [];

  /** Count `work` until it settles, either way (a rejection is the caller's to handle; it is not rethrown here). */
  track(work: Promise<unknown>): void {
    this.unfinished++;
    work.then(this.finished, this.finished);
  }

  /** Resolves once nothing tracked is left running. */
  async drain(): Promise<void> {
    if (this.unfinished === 0) return;
    await new Promise<void>((resolve) => this.whenIdle.push(resolve));
  }

  /** One piece of work ended; the last one wakes {@link drain}. */
  private readonly finished = (): void => {
    if (--this.unfinished > 0) return;
    const waiting = this.whenIdle;
    this.whenIdle = [];
    for (const resolve of waiting) resolve();
  };
}
