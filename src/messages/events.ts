/**
 * The Messages door's way out for a stream of another format: canonical events → Anthropic's
 * named SSE events. `message_start` (the gateway's id and model) goes before the first block; a
 * block opens when the kind of content changes (thinking, text, each tool call) and the one before
 * it closes; the door's closing events (`closing` in `door.ts`) close the last one.
 * @module
 */
import type { EventTranslator, StreamEvent } from '../inference/exchange';
import { summaryOf } from '../providers/chat-stream-parts';
import type { ChatStream, ChatUsage, FinishReason, StreamHead, StreamSummary } from '../providers/chat-types';
import { sseEvent } from './wire';
import { GeneratedText } from '../providers/generated-text';
import { countTokens } from '../usage/tokens';

/** What kind of block is open: thinking, text, or the tool call of a canonical index. */
type OpenBlock = { kind: 'thinking' } | { kind: 'text' } | { kind: 'tool'; call: number };

/** One translated stream (see the module comment). */
export class MessagesEvents implements ChatStream {
  private begun = false;
  private open: OpenBlock | null = null;
  /** The index of the open block (or of the next one, once it is closed). */
  private index = -1;
  private usage: ChatUsage | null = null;
  private finishReason: FinishReason | null = null;
  private nativeFinishReason: string | null = null;
  private toolCalls = 0;
  private readonly texts = new GeneratedText();
  started = false;
  error: { code: number; message: string } | null = null;

  constructor(
    private readonly events: EventTranslator,
    private readonly head: StreamHead,
  ) {}

  get done(): boolean {
    return this.events.done;
  }

  /** The index of the block still open (for the door's closing events), or null. */
  get openIndex(): number | null {
    return this.open ? this.index : null;
  }

  /** The canonical stop reason seen, if any. */
  get stopReason(): FinishReason | null {
    return this.finishReason;
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
      this.translate(e, out);
    }
    return out;
  }

  private translate(e: StreamEvent, out: string[]): void {
    switch (e.type) {
      case 'text':
        this.texts.add(e.text);
        this.ensure({ kind: 'text' }, { type: 'text', text: '' }, out);
        out.push(this.delta({ type: 'text_delta', text: e.text }));
        return;
      case 'reasoning':
        if (e.text) this.texts.add(e.text);
        this.ensure({ kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' }, out);
        if (e.text) out.push(this.delta({ type: 'thinking_delta', thinking: e.text }));
        if (e.signature && e.format === 'anthropic-claude-v1')
          out.push(this.delta({ type: 'signature_delta', signature: e.signature }));
        return;
      case 'tool_call_start':
        this.toolCalls++;
        this.texts.add(e.name);
        this.ensure({ kind: 'tool', call: e.index }, { type: 'tool_use', id: e.id, name: e.name, input: {} }, out);
        return;
      case 'tool_call_delta':
        this.texts.add(e.arguments);
        if (this.open?.kind !== 'tool' || this.open.call !== e.index) return; // a call that never started
        out.push(this.delta({ type: 'input_json_delta', partial_json: e.arguments }));
        return;
      case 'stop':
        this.finishReason = e.reason;
        this.nativeFinishReason = e.native;
        return;
      case 'usage':
        this.usage = e.usage;
        return;
      case 'error':
        this.error = { code: e.code, message: e.message };
        return;
    }
  }

  /** Open a block of `want`'s kind unless one is open, closing the open one of another kind. */
  private ensure(want: OpenBlock, block: Record<string, unknown>, out: string[]): void {
    const same =
      this.open?.kind === want.kind &&
      (want.kind !== 'tool' || (this.open.kind === 'tool' && this.open.call === want.call));
    if (same) return;
    this.begin(out);
    if (this.open) out.push(sseEvent('content_block_stop', { index: this.index }));
    this.index++;
    this.open = want;
    this.started = true;
    out.push(sseEvent('content_block_start', { index: this.index, content_block: block }));
  }

  /** `message_start` when nothing was written yet (an answer without content still opens as a message). */
  preamble(): string {
    const out: string[] = [];
    this.begin(out);
    return out.join('');
  }

  private begin(out: string[]): void {
    if (this.begun) return;
    this.begun = true;
    const { id, model } = this.head;
    const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    const message = {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    };
    out.push(sseEvent('message_start', { message }));
  }

  private delta(delta: Record<string, unknown>): string {
    return sseEvent('content_block_delta', { index: this.index, delta });
  }
}
