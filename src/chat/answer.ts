/**
 * The chat answer's wire forms: the whole `chat.completion`, and for streams the gateway's own
 * last chunk (usage with `usage.cost`), the error chunk the hosted service ends a broken stream
 * with, and `[DONE]`. The gateway's id, model and provider go in what it writes itself; chunks an
 * OpenAI-compatible upstream wrote pass through as they are.
 * @module
 */
import type { ChatChoice, ChatUsage, ParsedChat, StreamHead } from '../providers/chat-types';
import { BUDGET_NATIVE_STOP } from '../budgets/slices';

/** The stream's terminator. */
export const DONE_EVENT = 'data: [DONE]\n\n';

/** The answer's `usage` object, with the hosted service's extensions. */
export function usageWire(usage: ChatUsage, cost: number) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    cost,
    is_byok: false,
    prompt_tokens_details: {
      cached_tokens: usage.cacheReadTokens,
      cache_write_tokens: usage.cacheWriteTokens,
      audio_tokens: 0,
    },
    // The upstream's own bill is known only for BYOK calls, which the gateway does not make; the
    // hosted service's SDK requires both parts as numbers whenever `cost_details` is present.
    cost_details: {
      upstream_inference_cost: null,
      upstream_inference_prompt_cost: 0,
      upstream_inference_completions_cost: 0,
    },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

/** The whole answer's JSON. `system_fingerprint` is always present (the hosted service's SDK requires it). */
export function completionBody(head: StreamHead, parsed: ParsedChat, usage: ChatUsage, cost: number): string {
  const choices: ChatChoice[] = parsed.choices;
  return JSON.stringify({
    id: head.id,
    object: 'chat.completion',
    created: parsed.created ?? head.created,
    model: head.model,
    provider: head.provider,
    system_fingerprint: parsed.systemFingerprint,
    choices,
    usage: usageWire(usage, cost),
  });
}

function event(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

/** A chunk the gateway writes itself: the stream's head, then `rest`. */
function ownChunk(head: StreamHead, rest: Record<string, unknown>): string {
  const { id, created, model, provider } = head;
  return event({ id, object: 'chat.completion.chunk', created, model, provider, ...rest });
}

/** The stream's last chunk: no choices, the usage and its cost (and `metadata`, when the budget ended the answer). */
export function usageChunk(head: StreamHead, usage: ChatUsage, cost: number, metadata?: object): string {
  return ownChunk(head, {
    choices: [],
    usage: usageWire(usage, cost),
    ...(metadata ? { metadata } : {}),
  });
}

/** The chunk that stops a stream the budget ended: a length stop of the first choice, its native reason the budget's. */
export function budgetStopChunk(head: StreamHead): string {
  return ownChunk(head, {
    choices: [
      { index: 0, delta: {}, finish_reason: 'length', native_finish_reason: BUDGET_NATIVE_STOP, logprobs: null },
    ],
  });
}

/** The chunk a stream that broke after it started ends with (status 200 is already sent). */
export function errorChunk(head: StreamHead, code: number, message: string): string {
  return ownChunk(head, {
    error: { code, message },
    choices: [
      { index: 0, delta: { content: '' }, finish_reason: 'error', native_finish_reason: 'error', logprobs: null },
    ],
  });
}
