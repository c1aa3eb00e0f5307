/**
 * Reading OpenAI's Responses format, whole or streamed: its usage, how a response stopped, and
 * what its output generated (for the gateway's count when usage is missing).
 * @module
 */
import type { ChatUsage, FinishReason } from '../chat-types';
import { asObject, reportedCount } from '../parse';
import type { RawObject } from '../raw-object';

/** A Responses `usage` → {@link ChatUsage} (counts as reported); null when it has no token counts. */
export function responsesUsageOf(raw: unknown): ChatUsage | null {
  const u = asObject(raw);
  const prompt = reportedCount(u?.input_tokens);
  const completion = reportedCount(u?.output_tokens);
  if (!u || (prompt === null && completion === null)) return null;
  return {
    promptTokens: prompt ?? 0,
    completionTokens: completion ?? 0,
    cacheReadTokens: reportedCount(asObject(u.input_tokens_details)?.cached_tokens) ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: reportedCount(asObject(u.output_tokens_details)?.reasoning_tokens) ?? 0,
  };
}

const CALLS: ReadonlySet<unknown> = new Set(['function_call', 'custom_tool_call']);

/** Whether an output item is a call of one of the client's tools. */
export const isToolCall = (item: unknown): boolean => CALLS.has(asObject(item)?.type);

/** How a response stopped, canonical and as the upstream said it (`status`, or the incomplete reason). */
export function responsesFinishOf(
  response: RawObject | null,
  toolCalls: number,
): { finishReason: FinishReason | null; native: string | null } {
  const raw = response?.get('status');
  const status = typeof raw === 'string' ? raw : null;
  if (status === 'incomplete') {
    const reason = asObject(response?.get('incomplete_details'))?.reason;
    const native = typeof reason === 'string' ? reason : 'incomplete';
    return { finishReason: native === 'content_filter' ? 'content_filter' : 'length', native };
  }
  if (status === 'completed') return { finishReason: toolCalls > 0 ? 'tool_calls' : 'stop', native: status };
  return { finishReason: null, native: status };
}

/** The texts output items generated: messages' text and refusals, reasoning summaries, calls' names and input. */
export function outputTexts(output: unknown): string[] {
  const texts: string[] = [];
  const add = (v: unknown) => typeof v === 'string' && texts.push(v);
  for (const raw of Array.isArray(output) ? output : []) {
    const item = asObject(raw);
    if (!item) continue;
    for (const key of ['name', 'arguments', 'input'] as const) add(item[key]);
    for (const list of [item.content, item.summary])
      for (const part of Array.isArray(list) ? list : []) {
        add(asObject(part)?.text);
        add(asObject(part)?.refusal);
      }
  }
  return texts;
}
