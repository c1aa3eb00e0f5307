/**
 * The one undici dispatch core for every upstream call, whole or streamed. A call owns its timer,
 * settles its promise exactly once, classifies an error status from a bounded read of its body,
 * and aborts its connection when it is given up. Only what happens to a 2xx body differs: a whole
 * call gathers it (bounded) and settles at its end; a streamed call settles as soon as the
 * upstream answers and hands the body on chunk by chunk. It is dispatched with a minimal handler:
 * no Readable stream and no AbortSignal per call (undici's `request()` builds both).
 * @module
 */
import type { Dispatcher } from 'undici';
import {
  classifyStatus,
  retryAfter,
  type OverloadSignal,
  type UpstreamFailure,
  type UpstreamHeaders,
  type UpstreamRequest,
  type UpstreamResult,
} from './outcome';

/** Where an open stream's body goes. */
export interface StreamSink {
  data(chunk: Buffer): void;
  /** The body ended (`failure` null) or broke off (a short, secret-free reason). */
  end(failure: string | null): void;
}

/** A 2xx upstream stream whose body is flowing. */
export interface OpenStream {
  readonly status: number;
  /** Attach the consumer; chunks that arrived before are delivered at once, in order. */
  attach(sink: StreamSink): void;
  pause(): void;
  resume(): void;
  /** Stop the upstream call (closes its connection); the sink hears nothing more. */
  abort(): void;
}

/** How opening a stream ended: the flowing stream, or the failure (as for a whole answer). */
export type StreamOpening = { outcome: 'ok'; stream: OpenStream } | UpstreamFailure;

/** Origin and path of an upstream URL. */
export interface Target {
  origin: string;
  path: string;
}

/** The largest whole upstream body accepted (2048 inputs × 3072 floats is about 130 MB of JSON). */
const MAX_BODY_BYTES = 256 * 1024 * 1024;
/** The most of an error body read to classify it (it is never passed on). */
const MAX_ERROR_BODY = 64 * 1024;

/** What a call does with a 2xx body. */
type Mode = 'whole' | 'stream';

/** One upstream call: undici's handler, and the promise it settles. */
class UpstreamCall implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private retryAfterHeader: string | string[] | undefined;
  /** An error answer's headers, for the adapter's reading of it. */
  private errorHeaders: UpstreamHeaders | undefined;
  private settled = false;
  private aborted = false;
  /** A 2xx arrived: its body is the answer (whole) or the stream's (streamed). */
  private opened = false;
  private readonly timer: NodeJS.Timeout;
  private readonly started = performance.now();
  private errorBody: Buffer[] = [];
  private errorSize = 0;
  /** Whole calls: the body's chunks. */
  private readonly chunks: Buffer[] = [];
  private size = 0;
  /** Streamed calls: the consumer, what came before it attached, and how the body ended if it has. */
  private sink: StreamSink | null = null;
  private early: Buffer[] = [];
  private ended: string | null | undefined;

  constructor(
    private readonly mode: Mode,
    private readonly signal: OverloadSignal,
    timeoutMs: number,
    private readonly resolve: (result: UpstreamResult | StreamOpening) => void,
    private readonly maxBodyBytes: number = MAX_BODY_BYTES,
  ) {
    this.timer = setTimeout(
      () => {
        this.settle({ outcome: 'timeout', status: null, reason: `no answer within ${timeoutMs} ms` });
        this.abort('upstream attempt timed out');
      },
      Math.max(1, Math.ceil(timeoutMs)),
    );
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.controller = c;
    if (this.aborted) c.abort(new Error('upstream attempt timed out'));
  }

  onResponseStart(
    _c: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.status = statusCode;
    this.retryAfterHeader = headers['retry-after'];
    if (statusCode < 200 || statusCode >= 300) {
      this.errorHeaders = headers;
      return;
    }
    this.opened = true;
    if (this.mode === 'stream') this.settle({ outcome: 'ok', stream: this.openStream() });
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.opened) {
      if (this.errorSize < MAX_ERROR_BODY) this.errorBody.push(chunk);
      this.errorSize += chunk.length;
    } else if (this.mode === 'stream') {
      if (this.sink) this.sink.data(chunk);
      else if (!this.aborted) this.early.push(chunk);
    } else {
      this.size += chunk.length;
      if (this.size <= this.maxBodyBytes) this.chunks.push(chunk);
      else {
        this.chunks.length = 0;
        this.settle({
          outcome: 'server',
          status: this.status,
          reason: `upstream body over ${this.maxBodyBytes} bytes`,
        });
        c.abort(new Error('upstream body too large'));
      }
    }
  }

  onResponseEnd(): void {
    if (!this.opened) {
      const text = Buffer.concat(this.errorBody).toString('utf8');
      this.errorBody = [];
      this.settle(classifyStatus(this.status, text, retryAfter(this.retryAfterHeader), this.signal, this.errorHeaders));
    } else if (this.mode === 'stream') this.bodyEnded(null);
    else
      this.settle({
        outcome: 'ok',
        status: this.status,
        body: this.chunks,
        elapsedMs: performance.now() - this.started,
      });
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    const reason = (err as { code?: string }).code ?? 'connection failed';
    if (this.opened && this.mode === 'stream') this.bodyEnded(reason);
    else this.settle({ outcome: 'network', status: null, reason });
  }

  /** Resolve the call's promise, once. */
  settle(result: UpstreamResult | StreamOpening): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve(result);
  }

  private abort(reason: string): void {
    this.aborted = true;
    this.controller?.abort(new Error(reason));
  }

  private bodyEnded(failure: string | null): void {
    if (this.aborted && this.sink === null) return;
    if (this.sink) this.sink.end(failure);
    else this.ended = failure;
  }

  private openStream(): OpenStream {
    return {
      status: this.status,
      attach: (sink) => {
        this.sink = sink;
        const early = this.early;
        this.early = [];
        for (const chunk of early) sink.data(chunk);
        if (this.ended !== undefined) sink.end(this.ended);
      },
      pause: () => this.controller?.pause(),
      resume: () => this.controller?.resume(),
      abort: () => {
        this.sink = null;
        this.abort('client left');
      },
    };
  }
}

/**
 * POST `req` on `dispatcher`. Resolves (never rejects) within about `timeoutMs`: a whole call with
 * its gathered body or the classified failure; a streamed call once the upstream has answered,
 * with the flowing body on a 2xx, else the classified failure.
 */
export function dispatchPost(
  dispatcher: Dispatcher,
  target: Target,
  req: UpstreamRequest,
  signal: OverloadSignal,
  timeoutMs: number,
  mode: 'whole',
): Promise<UpstreamResult>;
export function dispatchPost(
  dispatcher: Dispatcher,
  target: Target,
  req: UpstreamRequest,
  signal: OverloadSignal,
  timeoutMs: number,
  mode: 'stream',
): Promise<StreamOpening>;
export function dispatchPost(
  dispatcher: Dispatcher,
  target: Target,
  req: UpstreamRequest,
  signal: OverloadSignal,
  timeoutMs: number,
  mode: Mode,
): Promise<UpstreamResult | StreamOpening> {
  return new Promise((resolve) => {
    const call = new UpstreamCall(mode, signal, timeoutMs, resolve, req.maxBodyBytes);
    try {
      dispatcher.dispatch(
        { origin: target.origin, path: target.path, method: 'POST', headers: req.headers, body: req.body },
        call,
      );
    } catch (err) {
      call.settle({ outcome: 'network', status: null, reason: (err as { code?: string }).code ?? 'connection failed' });
    }
  });
}
