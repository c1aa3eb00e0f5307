/**
 * The chat door's way out for a stream of another format: canonical events → OpenAI
 * `chat.completion.chunk` events carrying the gateway's id, model and provider, the first saying
 * the role. Reasoning is written as the hosted service streams it: `delta.reasoning` with the text
 * and `delta.reasoning_details` with each block's piece (its signature, encrypted data) at the
 * block's index; with `reasoning.exclude` it is billed but not written.
 * @module
 */
import type { EventTranslator, StreamEvent } from '../inference/exchange';
import { frame, summaryOf } from '../providers/chat-stream-parts';
import { GeneratedText } from '../providers/generated-text';
import { countTokens } from '../usage/tokens';
import { detailOf } from './reasoning-out';
import type { ChatStream, ChatUsage, FinishReason, StreamHead, StreamSummary } from '../providers/chat-types';

/** One translated stream (see the module comment). */
export class ChatChunks implements ChatStream {
  private roleSent = false;
  private usage: ChatUsage | null = null;
  private finishReason: FinishReason | null = null;
  private nativeFinishReason: string | null = null;
  private toolCalls = 0;
  /** The generated texts, tool names and arguments, counted only when the summary asks. */
  private readonly texts = new GeneratedText();
  started = false;
  error: { code: number; message: string } | null = null;

  /** The index of the reasoning block being streamed (-1 before the first). */
  private reasoningIndex = -1;
  /** Whether the open reasoning block is closed (by a signature, encrypted data, or other content). */
  private reasoningClosed = true;

  constructor(
    private readonly events: EventTranslator,
    private readonly head: StreamHead,
    private readonly hideReasoning = false,
  ) {}

  get done(): boolean {
    return this.events.done;
  }

  push(chunk: Buffer): string[] {
    return this.handle(this.events.push(chunk));
  }

  end(): string[] {
    return this.handle(this.events.end());
  }

  generatedBound(): number {
    return this.texts.bytes;
  }

  summary(): StreamSummary {
    const texts = this.texts;
    const parts = {
      usage: this.usage,
      finishReason: this.finishReason,
      nativeFinishReason: this.nativeFinishReason,
      toolCalls: this.toolCalls,
      upstreamId: this.events.upstreamId,
    };
    return summaryOf(parts, () => texts.tokens(countTokens));
  }

  private handle(events: StreamEvent[]): string[] {
    const out: string[] = [];
    for (const e of events) {
      if (this.error) break;
      const chunk = this.translate(e);
      if (chunk) out.push(frame(JSON.stringify(chunk)));
    }
    return out;
  }

  private translate(e: StreamEvent): Record<string, unknown> | null {
    switch (e.type) {
      case 'text':
        this.reasoningClosed = true;
        this.started = true;
        this.texts.add(e.text);
        return this.chunk({ content: e.text });
      case 'tool_call_start':
        this.reasoningClosed = true;
        this.started = true;
        this.toolCalls++;
        this.texts.add(e.name);
        return this.chunk({
          tool_calls: [{ index: e.index, id: e.id, type: 'function', function: { name: e.name, arguments: '' } }],
        });
      case 'tool_call_delta':
        this.texts.add(e.arguments);
        return this.chunk({ tool_calls: [{ index: e.index, function: { arguments: e.arguments } }] });
      case 'stop':
        this.finishReason = e.reason;
        this.nativeFinishReason = e.native;
        return this.chunk({}, e.reason, e.native);
      case 'usage':
        this.usage = e.usage;
        return null;
      case 'error':
        this.error = { code: e.code, message: e.message };
        return null;
      case 'reasoning':
        return this.reasoning(e);
    }
  }

  /** A reasoning event: one detail of the open block, or of a new one after a closed block. */
  private reasoning(e: Extract<StreamEvent, { type: 'reasoning' }>): Record<string, unknown> | null {
    this.started = true;
    if (e.text) this.texts.add(e.text);
    if (this.reasoningClosed) this.reasoningIndex++;
    this.reasoningClosed = e.signature !== undefined || e.encrypted !== undefined;
    if (this.hideReasoning) return null;
    const detail = detailOf(e, this.reasoningIndex);
    return this.chunk(e.text ? { reasoning: e.text, reasoning_details: [detail] } : { reasoning_details: [detail] });
  }

  /** One OpenAI chunk with `delta` (the first one says the role). */
  private chunk(
    delta: Record<string, unknown>,
    finish: FinishReason | null = null,
    native: string | null = null,
  ): Record<string, unknown> {
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
}
