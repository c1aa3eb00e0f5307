/**
 * Retry pacing for usage writes while the database (or Redis) is unavailable: exponential
 * backoff with full jitter, capped, reset by the first success. Nothing is dropped while
 * waiting; the backoff only decides when the next attempt may run.
 * @module
 */

/** Exponential backoff state for one writer. */
export class Backoff {
  private failures = 0;
  private notBefore = 0;

  /**
   * @param initialMs - delay after the first failure
   * @param maxMs - cap on the delay (config `usage.retryMaxMs`)
   * @param now - clock, injectable for tests
   */
  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether an attempt may run now. */
  ready(): boolean {
    return this.now() >= this.notBefore;
  }

  /** Milliseconds until the next attempt may run (0 when ready). */
  waitMs(): number {
    return Math.max(0, this.notBefore - this.now());
  }

  /** Record a failure and schedule the next attempt; returns the delay chosen. */
  fail(): number {
    this.failures += 1;
    const ceiling = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.failures - 1, 30));
    // Half fixed, half jitter: replicas retrying against a recovering database spread out.
    const delay = Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
    this.notBefore = this.now() + delay;
    return delay;
  }

  /** Record a success: the next failure starts from the initial delay again. */
  succeed(): void {
    this.failures = 0;
    this.notBefore = 0;
  }
}
