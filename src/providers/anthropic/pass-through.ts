/**
 * The Messages door's pass-through of an Anthropic-format upstream: whole answers as they came
 * (read once for billing), and streams event by event. Only `message_start` is rewritten (the
 * gateway's id and model); the final `message_delta` and `message_stop` are held back so that the
 * door closes the stream with the billed usage; an in-stream `error` is left to the door too.
 * Everything else (thinking and signature deltas, server tool blocks, event types added later)
 * goes out byte for byte in meaning.
 * @module
 */
import type { MessagesPassThrough, MessagesPassThroughStream, StreamHead, StreamSummary } from '../chat-types';
import type { ChatUsage } from '../chat-types';
import { SseTranslator, streamError, summaryOf } from '../chat-stream-parts';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import type { SseEvent } from '../sse';
import { finishOf, usageOf } from './finish';
import { answerOfMessage } from './response';
import { GeneratedText } from '../generated-text';
import { countTokens } from '../../usage/tokens';

const frame = (type: string, data: string) => `event: ${type}\ndata: ${data}\n\n`;

/** One passed-through stream (see the module comment). */
class PassThroughStream extends SseTranslator implements MessagesPassThroughStream {
  private rawUsage: Record<string, unknown> | null = null;
  private upstreamId: string | null = null;
  private toolCalls = 0;
  private readonly texts = new GeneratedText();
  private readonly open = new Set<number>();
  started = false;
  done = false;
  error: { code: number; message: string } | null = null;
  stopReason: string | null = null;
  stopSequence: string | null = null;

  constructor(private readonly head: StreamHead) {
    super();
  }

  get openBlocks(): readonly number[] {
    return [...this.open];
  }

  generatedBound(): number {
    return this.texts.bytes;
  }

  summary(): StreamSummary {
    const usage: ChatUsage | null = this.rawUsage ? usageOf(this.rawUsage) : null;
    const parts = {
      usage,
      finishReason: finishOf(this.stopReason),
      nativeFinishReason: this.stopReason,
      toolCalls: this.toolCalls,
      upstreamId: this.upstreamId,
    };
    const texts = this.texts;
    return summaryOf(parts, () => texts.tokens(countTokens));
  }

  protected handle(events: SseEvent[]): string[] {
    const out: string[] = [];
    for (const e of events) {
      if (this.done || this.error) break;
      const data = asObject(parseJson(e.data));
      if (!data) continue;
      const type = e.event ?? (typeof data.type === 'string' ? data.type : '');
      const written = this.translate(type, data, e.data);
      if (written !== null) out.push(written);
    }
    return out;
  }

  /** The event to write for one upstream event (null: held back or consumed). */
  private translate(type: string, data: Record<string, unknown>, raw: string): string | null {
    switch (type) {
      case 'message_start': {
        const message = asObject(data.message) ?? {};
        if (typeof message.id === 'string' && message.id !== '') this.upstreamId = message.id;
        this.addUsage(message.usage);
        return frame(
          type,
          JSON.stringify({ ...data, message: { ...message, id: this.head.id, model: this.head.model } }),
        );
      }
      case 'content_block_start': {
        this.started = true;
        if (typeof data.index === 'number') this.open.add(data.index);
        const block = asObject(data.content_block);
        if (block?.type === 'tool_use' || block?.type === 'server_tool_use') {
          this.toolCalls++;
          if (typeof block.name === 'string') this.texts.add(block.name);
        }
        if (typeof block?.text === 'string') this.texts.add(block.text);
        return frame(type, raw);
      }
      case 'content_block_delta': {
        this.started = true;
        const d = asObject(data.delta);
        for (const key of ['text', 'thinking', 'partial_json'] as const)
          if (typeof d?.[key] === 'string') this.texts.add(d[key]);
        return frame(type, raw);
      }
      case 'message_delta': {
        this.addUsage(data.usage);
        const d = asObject(data.delta);
        if (typeof d?.stop_reason === 'string') this.stopReason = d.stop_reason;
        if (typeof d?.stop_sequence === 'string') this.stopSequence = d.stop_sequence;
        return null;
      }
      case 'content_block_stop':
        if (typeof data.index === 'number') this.open.delete(data.index);
        return frame(type, raw);
      case 'message_stop':
        this.done = true;
        return null;
      case 'error':
        this.error = streamError(data) ?? { code: 502, message: 'Provider returned error' };
        return null;
      default: // ping, and event types added later
        return frame(type, raw);
    }
  }

  /** Later counts win (`message_delta`'s `output_tokens` is the running total). */
  private addUsage(raw: unknown): void {
    const u = asObject(raw);
    if (u) this.rawUsage = { ...this.rawUsage, ...u };
  }
}

/** The pass-through the Anthropic adapter offers the Messages door. */
export const messagesPassThrough: MessagesPassThrough = {
  parseMessage(body) {
    const message = asObject(parseJson(body.toString('utf8')));
    const answer = message && answerOfMessage(message);
    return answer && message ? { answer, message } : null;
  },
  createStream: (head) => new PassThroughStream(head),
};
