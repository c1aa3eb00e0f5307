/**
 * The Responses door's way out, shared by whole and streamed answers: the `response` object with
 * the gateway's id, model and billed usage (with `cost`), and its output items (`message` with
 * `output_text`, `reasoning`, `function_call`, `custom_tool_call`).
 * @module
 */
import type { StopReason, Usage } from '../inference/exchange';
import type { StreamHead } from '../providers/chat-types';
import type { Echo } from './echo';
import { BUDGET_STOP } from '../budgets/slices';
import { customInputOf, type ToolOrigin } from './tools';

/** An output item as sent. */
export type OutputItem = Record<string, unknown>;

/** The response's id: the generation id (`X-Generation-Id`, `GET /generation?id=`) behind `resp_`. */
export const responseId = (head: StreamHead): string => `resp_${head.id}`;

/** The id of output item `index` of the generation `head` names. */
export function itemId(prefix: 'msg' | 'rs' | 'fc' | 'ctc', head: StreamHead, index: number): string {
  return `${prefix}_${head.id}_${index}`;
}

/** An `output_text` part. */
export const outputText = (text: string): OutputItem => ({ type: 'output_text', text, annotations: [], logprobs: [] });

/** An assistant `message` item. */
export function messageItem(id: string, text: string | null, status: string): OutputItem {
  return { id, type: 'message', status, role: 'assistant', content: text === null ? [] : [outputText(text)] };
}

/** A `reasoning` item: its text as one summary part, its opaque form as `encrypted_content`. */
export function reasoningItem(id: string, text: string | null, encrypted: string | null): OutputItem {
  const item: OutputItem = { id, type: 'reasoning', summary: text === null ? [] : [{ type: 'summary_text', text }] };
  if (encrypted !== null) item.encrypted_content = encrypted;
  return item;
}

/** A tool call as the client's tool: `function_call` (with its `namespace`), or `custom_tool_call` with its input. */
export function callItem(id: string, callId: string, origin: ToolOrigin, args: string, status: string): OutputItem {
  if (origin.kind === 'custom')
    return { id, type: 'custom_tool_call', status, call_id: callId, name: origin.name, input: customInputOf(args) };
  const item: OutputItem = { id, type: 'function_call', status, call_id: callId, name: origin.name, arguments: args };
  if (origin.namespace) item.namespace = origin.namespace;
  return item;
}

/** The response's `status` and `incomplete_details` for how the answer stopped. */
export function statusOf(stop: StopReason | null): { status: string; incomplete_details: unknown } {
  if (stop === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (stop === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The status of an answer the budget ended: a length stop (`max_output_tokens`) saying so (budgets/slices.ts). */
export const BUDGET_INCOMPLETE = {
  status: 'incomplete',
  incomplete_details: { reason: 'max_output_tokens', ...BUDGET_STOP },
} as const;

/** The billed usage in the Responses shape, with its cost. */
export function usageOf(usage: Usage, cost: number): Record<string, unknown> {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.promptTokens + usage.completionTokens,
    cost,
  };
}

/**
 * A `response` object repeating `echo` of its request, as JSON text; `extra` sets its status,
 * output, usage, error. The echo is spliced in as written ({@link Echo}), so its tens of KB are
 * not serialised again for every response object.
 */
export function responseJson(head: StreamHead, echo: Echo, extra: Record<string, unknown>): string {
  const status = typeof extra.status === 'string' ? extra.status : 'in_progress';
  const before = JSON.stringify({
    id: responseId(head),
    object: 'response',
    created_at: head.created,
    completed_at: status === 'in_progress' || status === 'failed' ? null : head.created,
    model: head.model,
    provider: head.provider,
  });
  const after = JSON.stringify({
    status,
    background: false,
    store: false,
    error: null,
    incomplete_details: null,
    output: [],
    usage: null,
    ...extra,
  });
  return `${before.slice(0, -1)},${echo === '' ? '' : `${echo},`}${after.slice(1)}`;
}
