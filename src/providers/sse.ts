/**
 * Splits an upstream's Server-Sent Events body into events, fed bytes as they arrive and split
 * anywhere (mid-line, mid-UTF-8 character, between `\r` and `\n`). The line grammar (`data:` lines
 * joined, `event:`, comments, `\n` / `\r\n` / `\r` line ends) is `eventsource-parser`'s, a small
 * dependency-free parser kept up to date and used by the Vercel AI SDK and the OpenAI ecosystem;
 * this file only adds the byte decoding and the end-of-body rule.
 * @module
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';

/** One event: its `event:` name (undefined when unnamed) and its `data:` lines joined by `\n`. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** The most characters one event may buffer; an upstream sending more is cut off as broken. */
export const MAX_SSE_EVENT_CHARS = 16 * 1024 * 1024;

/** An incremental SSE splitter for one body. */
export class SseSplitter {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly parser: EventSourceParser;
  private out: SseEvent[] = [];
  /** Whether the text so far ends at a line end (so an unterminated last event is whole). */
  private atLineEnd = true;
  /** Set once an event outgrew {@link MAX_SSE_EVENT_CHARS}; nothing more is parsed. */
  overflowed = false;

  constructor(maxEventChars = MAX_SSE_EVENT_CHARS) {
    this.parser = createParser({
      onEvent: (e: EventSourceMessage) => void this.out.push({ event: e.event, data: e.data }),
      onError: (err) => {
        if (err.type === 'max-buffer-size-exceeded') this.overflowed = true;
      },
      maxBufferSize: maxEventChars,
    });
  }

  /** The events completed by `chunk`, in order. */
  push(chunk: Buffer | Uint8Array): SseEvent[] {
    return this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  /**
   * The body ended: a last event whose lines were complete but that lacked the blank line is
   * dispatched; a line cut in the middle (a truncated body) is dropped, never passed on half.
   */
  end(): SseEvent[] {
    const rest = this.decoder.decode();
    if (rest) this.feed(rest);
    return this.atLineEnd ? this.feed('\n\n') : this.take();
  }

  /** The error a stream that ended without finishing reports when an event outgrew the limit (else null). */
  overflowError(finished: boolean): { code: number; message: string } | null {
    return this.overflowed && !finished ? { code: 502, message: 'Provider sent an oversized stream event' } : null;
  }

  private feed(text: string): SseEvent[] {
    if (this.overflowed || text === '') return this.take();
    const last = text.charCodeAt(text.length - 1);
    this.atLineEnd = last === 0x0a || last === 0x0d;
    this.parser.feed(text);
    return this.take();
  }

  private take(): SseEvent[] {
    if (this.out.length === 0) return [];
    const events = this.out;
    this.out = [];
    return events;
  }
}
