/**
 * An Anthropic Messages stream turned into OpenAI `chat.completion.chunk` events. Every event is
 * parsed (each one has to be translated); `ping` and the block bookkeeping events yield nothing.
 * @module
 */
import type { ChatStream, ChatUsage, FinishReason, StreamHead, StreamSummary } from '../chat-types';
import { frame, streamError, summaryOf } from '../chat-stream-parts';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { SseSplitter, type SseEvent } from '../sse';
import { finishOf, usageOf } from './finish';

/** One Anthropic stream (see the module comment). */
export class AnthropicChatStream implements ChatStream {
  private readonly sse = new SseSplitter();
  /** The upstream's message id (the record's `upstream_id`). */
  private id = '';
  private roleSent = false;
  /** Anthropic content-block index → OpenAI tool-call index, for the `tool_use` blocks. */
  private readonly toolIndex = new Map<number, number>();
  /** Usage as `message_start` gave it, then updated by each `message_delta`. */
  private rawUsage: Record<string, unknown> | null = null;
  private usage: ChatUsage | null = null;
  private finishReason: FinishReason | null = null;
  private nativeFinishReason: string | null = null;
  /** The generated texts, tool names and arguments, joined only when the summary asks. */
  private readonly texts: string[] = [];
  started = false;
  done = false;
  error: { code: number; message: string } | null = null;

  constructor(private readonly head: StreamHead) {}

  push(chunk: Buffer): string[] {
    return this.handle(this.sse.push(chunk));
  }

  end(): string[] {
    const out = this.handle(this.sse.end());
    this.error ??= this.sse.overflowError(this.done);
    return out;
  }

  summary(): StreamSummary {
    const texts = this.texts;
    const parts = { usage: this.usage, finishReason: this.finishReason, nativeFinishReason: this.nativeFinishReason, toolCalls: this.toolIndex.size, upstreamId: this.id || null };
    return summaryOf(parts, () => texts.join(''));
  }

  private handle(events: SseEvent[]): string[] {
    const out: string[] = [];
    for (const e of events) {
      if (this.done || this.error) break;
      const data = asObject(parseJson(e.data));
      if (!data) continue;
      const chunk = this.translate(e.event ?? (typeof data.type === 'string' ? data.type : ''), data);
      if (chunk) out.push(frame(JSON.stringify(chunk)));
    }
    return out;
  }

  /** One OpenAI chunk with `delta` (the first one says the role). */
  private chunk(delta: Record<string, unknown>, finish: FinishReason | null = null, native: string | null = null): Record<string, unknown> {
    if (!this.roleSent) {
      this.roleSent = true;
      delta = { role: 'assistant', ...delta };
    }
    const { id, created, model, provider } = this.head;
    return {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      provider,
      choices: [{ index: 0, delta, finish_reason: finish, native_finish_reason: native, logprobs: null }],
    };
  }

  private content(text: unknown): Record<string, unknown> | null {
    if (typeof text !== 'string' || text === '') return null;
    this.started = true;
    this.texts.push(text);
    return this.chunk({ content: text });
  }

  private translate(type: string, data: Record<string, unknown>): Record<string, unknown> | null {
    switch (type) {
      case 'message_start': {
        const message = asObject(data.message);
        this.id = typeof message?.id === 'string' ? message.id : '';
        this.updateUsage(message?.usage);
        return null;
      }
      case 'content_block_start': {
        const block = asObject(data.content_block);
        if (block?.type === 'text') return this.content(block.text);
        if (block?.type !== 'tool_use' || typeof data.index !== 'number') return null;
        const index = this.toolIndex.size;
        this.toolIndex.set(data.index, index);
        const name = typeof block.name === 'string' ? block.name : '';
        this.started = true;
        this.texts.push(name);
        return this.chunk({ tool_calls: [{ index, id: block.id, type: 'function', function: { name, arguments: '' } }] });
      }
      case 'content_block_delta': {
        const delta = asObject(data.delta);
        if (delta?.type === 'text_delta') return this.content(delta.text);
        const index = typeof data.index === 'number' ? this.toolIndex.get(data.index) : undefined;
        if (delta?.type !== 'input_json_delta' || index === undefined || typeof delta.partial_json !== 'string' || delta.partial_json === '') return null;
        this.texts.push(delta.partial_json);
        return this.chunk({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] });
      }
      case 'message_delta': {
        this.updateUsage(data.usage);
        const stop = asObject(data.delta)?.stop_reason;
        if (typeof stop !== 'string') return null;
        this.finishReason = finishOf(stop);
        this.nativeFinishReason = stop;
        return this.chunk({}, this.finishReason, stop);
      }
      case 'message_stop':
        this.done = true;
        return null;
      case 'error':
        this.error = streamError(data) ?? { code: 502, message: 'Provider returned error' };
        return null;
      default: // ping, content_block_stop, and event types added later
        return null;
    }
  }

  /** `message_delta` repeats or adds counts (its `output_tokens` is the running total): later values win. */
  private updateUsage(raw: unknown): void {
    const u = asObject(raw);
    if (!u) return;
    this.rawUsage = { ...this.rawUsage, ...u };
    this.usage = usageOf(this.rawUsage);
  }
}
