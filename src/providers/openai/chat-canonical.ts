/**
 * OpenAI's chat format from and to the canonical model, for a door of another format (the chat
 * door itself passes its body and the answers through, see `chat.ts`).
 * @module
 */
import type { Answer, EventTranslator, Exchange, Part, StreamEvent } from '../../inference/exchange';
import type { ParsedChat } from '../chat-types';
import { streamError } from '../chat-stream-parts';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { SseSplitter, type SseEvent } from '../sse';
import { normaliseFinish, usageOf } from './chat-response';
import { hasReasoning, reasoningFields } from './reasoning';
import { reasoningParts } from '../../chat/reasoning-in';

/** A part as an OpenAI content part; null for tool calls and results (not content parts) and reasoning (no chat request form). */
function contentPart(p: Part): Record<string, unknown> | null {
  switch (p.type) {
    case 'text':
      return p.cacheControl
        ? { type: 'text', text: p.text, cache_control: p.cacheControl }
        : { type: 'text', text: p.text };
    case 'image': {
      const url = p.source.kind === 'url' ? p.source.url : `data:${p.source.mediaType};base64,${p.source.data}`;
      return { type: 'image_url', image_url: p.detail !== undefined ? { url, detail: p.detail } : { url } };
    }
    case 'audio':
      return { type: 'input_audio', input_audio: { data: p.data, format: p.format } };
    case 'file':
      return {
        type: 'file',
        file: {
          filename: p.filename,
          file_data:
            p.data !== undefined ? `data:${p.mediaType ?? 'application/octet-stream'};base64,${p.data}` : undefined,
          file_id: p.fileId,
        },
      };
    case 'tool_call':
    case 'tool_result':
    case 'reasoning':
      return null;
  }
}

function contentOf(parts: readonly Part[]): string | Array<Record<string, unknown>> {
  const out = parts.map(contentPart).filter((c): c is Record<string, unknown> => c !== null);
  return out.length === 1 && out[0]!.type === 'text' && !out[0]!.cache_control ? (out[0]!.text as string) : out;
}

/** The canonical messages as OpenAI's: a tool message per tool result, tool calls on the assistant message. */
function messagesOf(x: Exchange): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const m of x.messages) {
    if (m.role === 'tool') {
      for (const p of m.parts)
        if (p.type === 'tool_result')
          out.push({
            role: 'tool',
            tool_call_id: p.callId,
            content: typeof p.content === 'string' ? p.content : contentOf(p.content),
          });
      continue;
    }
    const message: Record<string, unknown> = { role: m.role, content: contentOf(m.parts) };
    const calls = m.parts
      .filter((p) => p.type === 'tool_call')
      .map((p) => ({ id: p.id, type: 'function', function: { name: p.name, arguments: p.arguments } }));
    if (m.role === 'assistant' && calls.length > 0) {
      message.tool_calls = calls;
      if (Array.isArray(message.content) && message.content.length === 0) message.content = null;
    }
    out.push(message);
  }
  return out;
}

/** An exchange as an OpenAI chat completions body (without `model` and the stream options, which the adapter adds). */
export function chatBodyOf(x: Exchange): Record<string, unknown> {
  const body: Record<string, unknown> = { messages: messagesOf(x) };
  if (x.tools)
    body.tools = x.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters, strict: t.strict },
    }));
  if (x.toolChoice !== undefined)
    body.tool_choice =
      typeof x.toolChoice === 'string' ? x.toolChoice : { type: 'function', function: { name: x.toolChoice.name } };
  if (x.parallelToolCalls !== undefined) body.parallel_tool_calls = x.parallelToolCalls;
  if (x.maxTokens !== undefined) body.max_completion_tokens = x.maxTokens;
  if (x.temperature !== undefined) body.temperature = x.temperature;
  if (x.topP !== undefined) body.top_p = x.topP;
  if (x.topK !== undefined) body.top_k = x.topK;
  if (x.stop !== undefined) body.stop = x.stop;
  if (x.seed !== undefined) body.seed = x.seed;
  const rf = x.responseFormat;
  if (rf)
    body.response_format =
      rf.type === 'json_schema'
        ? { type: 'json_schema', json_schema: { name: rf.name, schema: rf.schema, strict: rf.strict } }
        : { type: rf.type };
  if (x.user !== undefined) body.user = x.user;
  return body;
}

/** A parsed whole answer's first choice in canonical form. */
export function answerOf(parsed: ParsedChat): Answer {
  const message = parsed.choices[0]!.message;
  const parts: Part[] = message.reasoning_details ? reasoningParts(message.reasoning_details) : [];
  if (message.content) parts.push({ type: 'text', text: message.content });
  if (message.refusal) parts.push({ type: 'text', text: message.refusal });
  for (const call of message.tool_calls ?? [])
    parts.push({ type: 'tool_call', id: call.id, name: call.function.name, arguments: call.function.arguments });
  return {
    parts,
    stopReason: parsed.finishReason,
    nativeStopReason: parsed.nativeFinishReason,
    usage: parsed.usage,
    upstreamId: parsed.upstreamId,
  };
}

/** A delta's reasoning as canonical events: its details when it has them, else its text. */
function reasoningEvents(delta: Record<string, unknown>, out: StreamEvent[]): void {
  const { reasoning_details: details, reasoning } = reasoningFields(delta);
  for (const p of reasoningParts(details ?? [])) {
    if (p.type !== 'reasoning') continue;
    const e: StreamEvent = { type: 'reasoning', format: p.format };
    if (p.text) e.text = p.text;
    if (p.signature !== undefined) e.signature = p.signature;
    if (p.encrypted !== undefined) e.encrypted = p.encrypted;
    out.push(e);
  }
  if (!details && reasoning) out.push({ type: 'reasoning', format: 'unknown', text: reasoning });
}

/** An OpenAI-compatible stream as canonical events (the first choice's deltas). */
export class OpenAIEvents implements EventTranslator {
  private readonly sse = new SseSplitter();
  upstreamId: string | null = null;
  done = false;
  private failed = false;
  /** A finish reason was seen: a body that ends cleanly after it is a finished stream, `[DONE]` or not. */
  private finished = false;
  /** Tool-call indexes whose start has been reported. */
  private readonly started = new Set<number>();

  push(chunk: Buffer): StreamEvent[] {
    return this.handle(this.sse.push(chunk));
  }

  end(): StreamEvent[] {
    const out = this.handle(this.sse.end());
    const overflow = this.failed ? null : this.sse.overflowError(this.done);
    if (overflow) out.push({ type: 'error', ...overflow });
    else if (this.finished && !this.failed) this.done = true;
    return out;
  }

  private handle(events: SseEvent[]): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const e of events) {
      if (this.done || this.failed) break;
      if (e.data === '[DONE]') {
        this.done = true;
        break;
      }
      const chunk = asObject(parseJson(e.data));
      const error =
        e.event === 'error' || chunk?.error !== undefined
          ? (streamError(chunk) ?? { code: 502, message: 'Provider returned error' })
          : null;
      if (error) {
        this.failed = true;
        out.push({ type: 'error', ...error });
        break;
      }
      if (chunk) this.translate(chunk, out);
    }
    return out;
  }

  private translate(chunk: Record<string, unknown>, out: StreamEvent[]): void {
    if (this.upstreamId === null && typeof chunk.id === 'string') this.upstreamId = chunk.id;
    const choice = asObject(Array.isArray(chunk.choices) ? chunk.choices[0] : undefined);
    const delta = asObject(choice?.delta);
    if (delta && hasReasoning(delta)) reasoningEvents(delta, out);
    if (typeof delta?.content === 'string' && delta.content !== '') out.push({ type: 'text', text: delta.content });
    if (typeof delta?.refusal === 'string' && delta.refusal !== '') out.push({ type: 'text', text: delta.refusal });
    for (const raw of Array.isArray(delta?.tool_calls) ? delta.tool_calls : []) {
      const call = asObject(raw);
      const fn = asObject(call?.function);
      const index = typeof call?.index === 'number' ? call.index : 0;
      if (!this.started.has(index) && typeof call?.id === 'string') {
        this.started.add(index);
        out.push({ type: 'tool_call_start', index, id: call.id, name: typeof fn?.name === 'string' ? fn.name : '' });
      }
      if (typeof fn?.arguments === 'string' && fn.arguments !== '')
        out.push({ type: 'tool_call_delta', index, arguments: fn.arguments });
    }
    if (typeof choice?.finish_reason === 'string') this.finished = true;
    if (typeof choice?.finish_reason === 'string')
      out.push({ type: 'stop', reason: normaliseFinish(choice.finish_reason) ?? 'stop', native: choice.finish_reason });
    const usage = usageOf(chunk.usage);
    if (usage) out.push({ type: 'usage', usage });
  }
}
