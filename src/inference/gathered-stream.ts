/**
 * A whole answer read from the upstream as a stream, so that the budget can meter it slice by
 * slice (budgets/slices.ts): the stream attempt writes the door's events here instead of to the
 * client, and the door assembles its whole body from them once the stream is over. The client's
 * connection is still watched, so a client that leaves stops the upstream call as it would a stream.
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { StreamSink } from './sse-writer';

/** The events of one gathered answer (see the module comment). */
export class GatheredStream implements StreamSink {
  private readonly events: string[] = [];
  private gone: boolean;
  private onLeave: (() => void) | null = null;

  constructor(res: ServerResponse) {
    this.gone = res.destroyed || res.writableEnded;
    res.once('close', () => {
      if (res.writableFinished) return;
      this.gone = true;
      this.onLeave?.();
    });
  }

  get left(): boolean {
    return this.gone;
  }

  /** Nothing is sent while gathering: the whole answer goes out at the end. */
  get waiting(): boolean {
    return false;
  }

  whenLeft(listener: (() => void) | null): void {
    this.onLeave = listener;
  }

  open(): void {}

  write(text: string): void {
    this.events.push(text);
  }

  abandon(): void {
    this.gone = true;
  }

  /** Every event written, then `last` (the door's closing events). */
  text(last: string): string {
    return this.events.join('') + last;
  }
}
