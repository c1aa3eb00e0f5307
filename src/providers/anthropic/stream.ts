/**
 * An Anthropic Messages stream turned into canonical events. Every event is parsed (each one has
 * to be translated); `ping` and the block bookkeeping events yield nothing.
 * @module
 */
import type { EventTranslator, StreamEvent, Usage } from '../../inference/exchange';
import { streamError } from '../chat-stream-parts';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { SseSplitter, type SseEvent } from '../sse';
import { finishOf, usageOf } from './finish';

/** One Anthropic stream (see the module comment). */
export class AnthropicEvents implements EventTranslator {
  private readonly sse = new SseSplitter();
  /** The upstream's message id (the record's `upstream_id`). */
  upstreamId: string | null = null;
  /** Anthropic content-block index → canonical tool-call index, for the `tool_use` blocks. */
  private readonly toolIndex = new Map<number, number>();
  /** Usage as `message_start` gave it, then updated by each `message_delta`. */
  private rawUsage: Record<string, unknown> | null = null;
  done = false;
  private failed = false;

  push(chunk: Buffer): StreamEvent[] {
    return this.handle(this.sse.push(chunk));
  }

  end(): StreamEvent[] {
    const out = this.handle(this.sse.end());
    const overflow = this.failed ? null : this.sse.overflowError(this.done);
    if (overflow) out.push({ type: 'error', ...overflow });
    return out;
  }

  private handle(events: SseEvent[]): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const e of events) {
      if (this.done || this.failed) break;
      const data = asObject(parseJson(e.data));
      if (data) this.translate(e.event ?? (typeof data.type === 'string' ? data.type : ''), data, out);
    }
    return out;
  }

  private translate(type: string, data: Record<string, unknown>, out: StreamEvent[]): void {
    switch (type) {
      case 'message_start': {
        const message = asObject(data.message);
        this.upstreamId = typeof message?.id === 'string' && message.id !== '' ? message.id : null;
        this.updateUsage(message?.usage, out);
        return;
      }
      case 'content_block_start': {
        const block = asObject(data.content_block);
        if (block?.type === 'text') return text(block.text, out);
        if (block?.type === 'thinking') return thinking({ text: block.thinking }, out);
        if (block?.type === 'redacted_thinking') return thinking({ encrypted: block.data }, out);
        if (block?.type !== 'tool_use' || typeof data.index !== 'number') return;
        const index = this.toolIndex.size;
        this.toolIndex.set(data.index, index);
        out.push({
          type: 'tool_call_start',
          index,
          id: typeof block.id === 'string' ? block.id : '',
          name: typeof block.name === 'string' ? block.name : '',
        });
        return;
      }
      case 'content_block_delta': {
        const delta = asObject(data.delta);
        if (delta?.type === 'text_delta') return text(delta.text, out);
        if (delta?.type === 'thinking_delta') return thinking({ text: delta.thinking }, out);
        if (delta?.type === 'signature_delta') return thinking({ signature: delta.signature }, out);
        const index = typeof data.index === 'number' ? this.toolIndex.get(data.index) : undefined;
        if (
          delta?.type !== 'input_json_delta' ||
          index === undefined ||
          typeof delta.partial_json !== 'string' ||
          delta.partial_json === ''
        )
          return;
        out.push({ type: 'tool_call_delta', index, arguments: delta.partial_json });
        return;
      }
      case 'message_delta': {
        this.updateUsage(data.usage, out);
        const stop = asObject(data.delta)?.stop_reason;
        if (typeof stop === 'string') out.push({ type: 'stop', reason: finishOf(stop) ?? 'stop', native: stop });
        return;
      }
      case 'message_stop':
        this.done = true;
        return;
      case 'error':
        this.failed = true;
        out.push({ type: 'error', ...(streamError(data) ?? { code: 502, message: 'Provider returned error' }) });
        return;
      default: // ping, content_block_stop, and event types added later
        return;
    }
  }

  /** `message_delta` repeats or adds counts (its `output_tokens` is the running total): later values win. */
  private updateUsage(raw: unknown, out: StreamEvent[]): void {
    const u = asObject(raw);
    if (!u) return;
    this.rawUsage = { ...this.rawUsage, ...u };
    const usage: Usage | null = usageOf(this.rawUsage);
    if (usage) out.push({ type: 'usage', usage });
  }
}

/** A piece of a thinking block (its text, signature or redacted data) as a reasoning event; nothing when it is empty. */
function thinking(piece: { text?: unknown; signature?: unknown; encrypted?: unknown }, out: StreamEvent[]): void {
  const e: StreamEvent = { type: 'reasoning', format: 'anthropic-claude-v1' };
  if (typeof piece.text === 'string' && piece.text !== '') e.text = piece.text;
  else if (typeof piece.signature === 'string' && piece.signature !== '') e.signature = piece.signature;
  else if (typeof piece.encrypted === 'string' && piece.encrypted !== '') e.encrypted = piece.encrypted;
  else return;
  out.push(e);
}

function text(value: unknown, out: StreamEvent[]): void {
  if (typeof value === 'string' && value !== '') out.push({ type: 'text', text: value });
}
