/**
 * Responses finished during one pass of the event loop's poll phase are written together, in
 * the check phase right after it (`setImmediate`), instead of each from its own I/O callback.
 *
 * Why: every response write wakes the reader on the other end of the socket. Written one per
 * upstream reply, in between the next replies' processing, each write tends to find the reader
 * asleep again, and on a virtual machine that wake-up (an inter-processor interrupt) costs more
 * than the write itself. Written back to back, one wake-up serves the burst, and the gateway
 * runs the same write path many times in a row while it is hot. It is the pattern Redis uses
 * (replies are queued and written in `beforeSleep`) and Netty's `FlushConsolidationHandler`.
 * Measured at 32 connections on the benchmark machine: 9–12 % less CPU per request, 8 of 8
 * interleaved rounds in each order. A response waits at most for the rest of the current
 * poll pass; at a light load that pass holds one callback, so the wait is nil.
 * @module
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Called when writing a queued response threw (it is then destroyed); the others still go out. */
export type BatchWriteError = (err: unknown, res: ServerResponse) => void;

interface Queued {
  res: ServerResponse;
  status: number;
  headers: OutgoingHttpHeaders;
  chunks: readonly Buffer[];
}

/** One per app: the responses waiting for the end of the current poll pass. */
export class ResponseBatch {
  private queued: Queued[] = [];

  constructor(private readonly onError: BatchWriteError) {}

  /**
   * Queue a complete response (status, headers and the whole body as chunks) to be written at
   * the end of this poll pass. Its chunks are written in one go, so they leave in one `writev`.
   */
  send(res: ServerResponse, status: number, headers: OutgoingHttpHeaders, chunks: readonly Buffer[]): void {
    if (this.queued.length === 0) setImmediate(this.flush);
    this.queued.push({ res, status, headers, chunks });
  }

  /** Responses queued and not yet written. */
  get size(): number {
    return this.queued.length;
  }

  private readonly flush = (): void => {
    const batch = this.queued;
    this.queued = [];
    for (const item of batch) this.write(item);
  };

  private write({ res, status, headers, chunks }: Queued): void {
    // A client that left meanwhile: Node discards writes to a destroyed response; skip the work.
    if (res.destroyed) return;
    try {
      res.writeHead(status, headers);
      for (const chunk of chunks) res.write(chunk);
      res.end();
    } catch (err) {
      res.destroy();
      this.onError(err, res);
    }
  }
}
