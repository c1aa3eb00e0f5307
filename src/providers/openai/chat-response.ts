/** An OpenAI-compatible chat answer (whole, or a stream's chunk members) → the gateway's view. */
import type { ChatAnswerMessage, ChatChoice, ChatUsage, FinishReason, ParsedChat } from '../chat-types';
import { reasoningFields } from './reasoning';
import { asObject, countOrNull, reportedCount } from '../parse';
import { parseJson } from '../raw-json';

/** Finish reasons compatible servers use beside OpenAI's own (Mistral's `model_length`, the legacy `function_call`). */
const FINISH: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  length: 'length',
  model_length: 'length',
  content_filter: 'content_filter',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  error: 'error',
};

/** A raw finish reason normalised; an unknown one ended the answer normally, so `stop`. */
export function normaliseFinish(raw: unknown): FinishReason | null {
  return typeof raw === 'string' ? (FINISH[raw] ?? 'stop') : null;
}

/** OpenAI's `usage` object → {@link ChatUsage} (counts as reported, see `reportedCount`); null when it has no token counts. */
export function usageOf(raw: unknown): ChatUsage | null {
  const u = asObject(raw);
  const prompt = reportedCount(u?.prompt_tokens);
  const completion = reportedCount(u?.completion_tokens);
  if (!u || (prompt === null && completion === null)) return null;
  return {
    promptTokens: prompt ?? 0,
    completionTokens: completion ?? 0,
    cacheReadTokens: reportedCount(asObject(u.prompt_tokens_details)?.cached_tokens) ?? 0,
    cacheWriteTokens: reportedCount(asObject(u.prompt_tokens_details)?.cache_write_tokens) ?? 0,
    reasoningTokens: reportedCount(asObject(u.completion_tokens_details)?.reasoning_tokens) ?? 0,
  };
}

/** A choice's tool calls when they are well formed; undefined when absent. */
function toolCallsOf(raw: unknown): ChatAnswerMessage['tool_calls'] | undefined | null {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) return null;
  const calls: NonNullable<ChatAnswerMessage['tool_calls']> = [];
  for (const c of raw) {
    const call = asObject(c);
    const fn = asObject(call?.function);
    if (!call || typeof call.id !== 'string' || !fn || typeof fn.name !== 'string') return null;
    calls.push({
      id: call.id,
      type: 'function',
      function: { name: fn.name, arguments: typeof fn.arguments === 'string' ? fn.arguments : '' },
      // Gemini's thought signature rides on the call; it must come back with it on the next turn.
      ...(call.extra_content !== undefined ? { extra_content: call.extra_content } : {}),
    });
  }
  return calls;
}

function choiceOf(raw: unknown, position: number): ChatChoice | null {
  const c = asObject(raw);
  const m = asObject(c?.message);
  if (!c || !m) return null;
  const content =
    m.content === undefined || m.content === null ? null : typeof m.content === 'string' ? m.content : undefined;
  const toolCalls = toolCallsOf(m.tool_calls);
  if (content === undefined || toolCalls === null) return null;
  const message: ChatChoice['message'] = { role: 'assistant', content };
  if (typeof m.refusal === 'string') message.refusal = m.refusal;
  if (toolCalls) message.tool_calls = toolCalls;
  Object.assign(message, reasoningFields(m));
  // Web-search citations and audio output, as the upstream wrote them.
  if (m.annotations !== undefined && m.annotations !== null) message.annotations = m.annotations;
  if (m.audio !== undefined && m.audio !== null) message.audio = m.audio;
  const native = typeof c.finish_reason === 'string' ? c.finish_reason : null;
  return {
    index: typeof c.index === 'number' ? c.index : position,
    message,
    finish_reason: normaliseFinish(native),
    native_finish_reason: typeof c.native_finish_reason === 'string' ? c.native_finish_reason : native,
    logprobs: c.logprobs ?? null,
  };
}

/** A 2xx body → {@link ParsedChat}; null when it is not a chat completion with at least one choice. */
export function fromChatResponse(body: Buffer): ParsedChat | null {
  const b = asObject(parseJson(body.toString('utf8')));
  if (!b || !Array.isArray(b.choices) || b.choices.length === 0) return null;
  const choices: ChatChoice[] = [];
  for (let i = 0; i < b.choices.length; i++) {
    const choice = choiceOf(b.choices[i], i);
    if (!choice) return null;
    choices.push(choice);
  }
  const first = choices[0]!;
  return {
    choices,
    created: countOrNull(b.created),
    systemFingerprint: typeof b.system_fingerprint === 'string' ? b.system_fingerprint : null,
    usage: usageOf(b.usage),
    upstreamId: typeof b.id === 'string' ? b.id : null,
    finishReason: first.finish_reason,
    nativeFinishReason: first.native_finish_reason,
    toolCalls: choices.reduce((n, c) => n + (c.message.tool_calls?.length ?? 0), 0),
  };
}
