/**
 * What the `openai` client tests share: the gateway's extensions of OpenAI's answer (which the
 * client's types do not know) and the one tool the fake upstreams call, and reading records and streams.
 */
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { UsageEvent } from '../../src/usage/types';

/** The gateway's extensions of the OpenAI answer. */
export interface Extensions {
  provider: string;
  usage: { cost: number; prompt_tokens: number; completion_tokens: number };
}

/** A function tool; the fakes call the first tool with `{"text": <last user text>}`. */
export const weather: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'weather',
      description: 'The weather in a place',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  },
];

/** The one usage event recorded for generation `id` (it fails the test unless there is exactly one). */
export function recordedOnce(events: readonly UsageEvent[], id: string): UsageEvent {
  const matching = events.filter((e) => e.id === id);
  expect(matching).toHaveLength(1);
  return matching[0]!;
}

/** Read a streamed answer to its end: its chunks in order. */
export async function drain<T = ChatCompletionChunk>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

/** The HTTP status a call ends with: 200, or the status of the error the client threw. */
export function statusOf(p: Promise<unknown>): Promise<number | undefined> {
  return p.then(
    () => 200,
    (e: unknown) => (e as { status?: number }).status,
  );
}

/** Read a stream that should fail: the content that reached the client, and the error it ended with (null if none). */
export async function readUntilFailure(
  stream: AsyncIterable<ChatCompletionChunk>,
): Promise<{ seen: string; failed: unknown }> {
  const seen: string[] = [];
  try {
    for await (const c of stream) seen.push(c.choices[0]?.delta?.content ?? '');
    return { seen: seen.join(''), failed: null };
  } catch (e) {
    return { seen: seen.join(''), failed: e };
  }
}
