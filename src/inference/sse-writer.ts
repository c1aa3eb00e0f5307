/**
 * The client's side of one streamed answer: the 200 and its SSE headers (sent once), writes that
 * pause the upstream while the client is slow, keep-alive comments, the last write, and who to
 * tell when the client leaves. It knows nothing of attempts or formats: a door decides what to
 * write, the stream attempt (`stream-attempt.ts`) when.
 * @module
 */
import type { ServerResponse } from 'node:http';

/** An SSE comment that keeps an idle connection open while the upstream has not started. */
export const KEEP_ALIVE_EVENT = ': SWITCHYARD PROCESSING\n\n';

/** What a slow client may pause: the upstream body being relayed. */
export interface Pausable {
  pause(): void;
  resume(): void;
}

/** What a stream attempt writes to: the client's SSE ({@link SseWriter}), or a whole answer being gathered (`gathered-stream.ts`). */
export type StreamSink = Pick<SseWriter, 'open' | 'write' | 'whenLeft' | 'waiting' | 'abandon' | 'left'>;

/** One streamed answer's writer. */
export class SseWriter implements StreamSink {
  private headersSent = false;
  private gone: boolean;
  /** A write found the client's buffer full and its drain has not come yet. */
  private stalled = false;
  /** Told when the client leaves: the attempt in progress, if any. */
  private onLeave: (() => void) | null = null;

  /** @param headers - extra headers of the 200 (the generation id) */
  constructor(
    private readonly res: ServerResponse,
    private readonly headers: Record<string, string>,
  ) {
    this.gone = res.destroyed || res.writableEnded;
    res.once('close', () => {
      if (res.writableFinished) return;
      this.gone = true;
      this.onLeave?.();
    });
  }

  /** Whether the 200 and its headers have gone out (errors are then written in the stream). */
  get opened(): boolean {
    return this.headersSent;
  }

  /** Whether the client has gone. */
  get left(): boolean {
    return this.gone;
  }

  /** Who to tell when the client leaves from now on (null: nobody). */
  whenLeft(listener: (() => void) | null): void {
    this.onLeave = listener;
  }

  /** Send the 200 and the SSE headers, once. */
  open(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      'X-Accel-Buffering': 'no',
      ...this.headers,
    });
    this.res.flushHeaders();
  }

  /** Whether the client is not taking what was written (its buffer is full, no drain yet). */
  get waiting(): boolean {
    return this.stalled;
  }

  /** Write `text`, pausing `upstream` until the client has taken it when its buffer is full. */
  write(text: string, upstream?: Pausable): void {
    if (this.gone || this.res.writableEnded) return;
    if (!this.res.write(text) && upstream && !this.stalled) {
      this.stalled = true;
      upstream.pause();
      this.res.once('drain', () => {
        this.stalled = false;
        upstream.resume();
      });
    }
  }

  /** Drop a client that stopped reading: nothing more can reach it, so its connection is closed. */
  abandon(): void {
    this.gone = true;
    this.res.destroy();
  }

  /** End the stream with `last` (the door's closing events). */
  finish(last: string): void {
    if (this.gone || this.res.writableEnded) return;
    this.res.end(last);
  }
}
