/** Helpers of the chat client tests: a stream read to its end, and the one record of a generation. */
import type { UsageEvent } from '../../src/usage/types';

/** Read a streamed answer to its end: its chunks in order. */
export async function drain<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

/** The one usage event of `events` recorded for generation `id` (the test fails on none or several). */
export function recordedIn(events: readonly UsageEvent[], id: string): UsageEvent {
  const matching = events.filter((e) => e.id === id);
  expect(matching).toHaveLength(1);
  return matching[0]!;
}
