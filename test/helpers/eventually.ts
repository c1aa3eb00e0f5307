/**
 * Wait for a condition instead of sleeping: a fixed sleep is either too short on a loaded machine
 * (a flaky test) or longer than needed (a slow one). These poll every few milliseconds until the
 * condition holds, and fail with a message naming what never happened once the deadline passes.
 */

/** Options for {@link eventually} and {@link until}. */
export interface PollOptions {
  /** Give up after this long; default 5 s (well inside jest's per-test timeout). */
  timeoutMs?: number;
  /** Pause between checks; default 5 ms. */
  everyMs?: number;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Resolve once `condition` returns (or resolves to) a truthy value, with that value; reject when
 * it has not by the deadline. `what` names the condition in the failure message.
 */
export async function until<T>(
  what: string,
  condition: () => T | Promise<T>,
  opts: PollOptions = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 5000);
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${opts.timeoutMs ?? 5000} ms waiting for ${what}`);
    await pause(opts.everyMs ?? 5);
  }
}

/**
 * Retry `check` (typically a block of `expect`s) until it stops throwing, and return its result;
 * once the deadline has passed, the last failure is thrown, so the report shows the real assertion.
 */
export async function eventually<T>(check: () => T | Promise<T>, opts: PollOptions = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 5000);
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    await pause(opts.everyMs ?? 5);
  }
}
