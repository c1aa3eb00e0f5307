/**
 * One streamed chat request on its way to the client. Each fallback attempt opens an upstream
 * stream and holds its events until the first content arrives; only then is the attempt a
 * success, and from there on events go to the client as they arrive, with the upstream paused
 * while the client is slow. A failure before that moves on to the next candidate; after it, the
 * stream ends with the hosted service's error chunk. A client that leaves aborts the upstream
 * call; what was generated is still counted.
 * @module
 */
import type { ServerResponse } from 'node:http';
import type { Endpoint } from '../catalog/types';
import type { UpstreamHttp } from '../providers/http';
import type { ChatAdapter, ChatJob, ChatStream } from '../providers/chat-types';
import type { OpenStream } from '../providers/http-stream';
import type { AttemptResult } from '../routing/run-with-fallback';
import { DONE_EVENT, KEEP_ALIVE_EVENT } from './answer';

/** How a started stream ended. */
export type StreamEnd =
  | { kind: 'done' }
  | { kind: 'upstream_error'; code: number; message: string }
  | { kind: 'client_left' };

/** A stream that has started: the endpoint serving it and how to wait for its end. */
export interface LiveStream {
  endpoint: Endpoint;
  translator: ChatStream;
  /** `performance.now()` when the attempt began (the upstream's share runs from here). */
  attemptStart: number;
  /** `performance.now()` when the first content was written to the client. */
  firstContentAt: number;
  ended: Promise<StreamEnd>;
}

/** Options of one streamed request. */
export interface StreamOptions {
  http: UpstreamHttp;
  idleTimeoutMs: number;
  keepAliveMs: number;
  /** The headers that go with the 200 (`X-Generation-Id`). */
  headers: Record<string, string>;
}

/** The upstream's in-stream error as a failed attempt, before anything was sent. */
function failureOf(error: { code: number; message: string }): AttemptResult<never> {
  if (error.code === 529) return { outcome: 'overloaded', status: 529, reason: 'upstream overloaded (in stream)' };
  if (error.code === 429) return { outcome: 'rate_limited', status: 429, reason: 'upstream rate limit (in stream)' };
  return { outcome: 'server', status: 200, reason: 'upstream error event before content' };
}

/** The client's side of one streamed request, shared by its attempts. */
export class StreamedChat {
  private headersSent = false;
  private gone: boolean;
  /** Aborts whatever upstream call is open now, when the client leaves. */
  private onLeave: (() => void) | null = null;

  constructor(
    private readonly res: ServerResponse,
    private readonly o: StreamOptions,
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

  /** One attempt on `endpoint`: ok once its first content is written to the client. */
  attempt(adapter: ChatAdapter, job: ChatJob, endpoint: Endpoint, timeoutMs: number, inject?: (headers: Record<string, string>) => void): Promise<AttemptResult<LiveStream>> {
    const attemptStart = performance.now();
    if (this.gone) return Promise.resolve({ outcome: 'client', status: null, reason: 'client left' });
    const req = adapter.buildRequest(job, endpoint);
    inject?.(req.headers);
    return this.o.http.stream(req, adapter, timeoutMs).then((opening) => {
      if (opening.outcome !== 'ok') return opening;
      if (this.gone) {
        opening.stream.abort();
        return { outcome: 'client', status: null, reason: 'client left' };
      }
      this.open();
      const left = Math.max(1, timeoutMs - (performance.now() - attemptStart));
      return this.follow(opening.stream, adapter.createStream(), endpoint, attemptStart, left);
    });
  }

  /** Send the 200 and the SSE headers, once. */
  private open(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    this.res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no', ...this.o.headers });
    this.res.flushHeaders();
  }

  /** Write `text` to the client, pausing `upstream` until the client has taken it when its buffer is full. */
  write(text: string, upstream?: OpenStream): void {
    if (this.gone || this.res.writableEnded) return;
    if (!this.res.write(text) && upstream) {
      upstream.pause();
      this.res.once('drain', () => upstream.resume());
    }
  }

  /** End the stream with `last` (the usage or error chunk) and `[DONE]`. */
  finish(last: string): void {
    if (this.gone || this.res.writableEnded) return;
    this.res.end(last + DONE_EVENT);
  }

  /**
   * Read `upstream` through `translator`: held until the first content (or the end), then
   * written as it comes. Resolves when the attempt is decided; the live stream's `ended` follows.
   */
  private follow(upstream: OpenStream, translator: ChatStream, endpoint: Endpoint, attemptStart: number, timeoutMs: number): Promise<AttemptResult<LiveStream>> {
    return new Promise((resolve) => {
      const held: string[] = [];
      let decided = false;
      let live: LiveStream | null = null;
      let endLive: (end: StreamEnd) => void = () => undefined;
      let idle: NodeJS.Timeout | undefined;
      const keepAlive = setInterval(() => this.write(KEEP_ALIVE_EVENT), this.o.keepAliveMs);
      const timer = setTimeout(() => {
        upstream.abort();
        decide({ outcome: 'timeout', status: null, reason: `no content within ${Math.round(timeoutMs)} ms` });
      }, timeoutMs);
      const decide = (result: AttemptResult<LiveStream>): void => {
        decided = true;
        clearTimeout(timer);
        clearInterval(keepAlive);
        this.onLeave = live ? () => ended({ kind: 'client_left' }) : null;
        resolve(result);
      };
      const ended = (end: StreamEnd): void => {
        clearTimeout(idle);
        this.onLeave = null;
        if (end.kind !== 'done') upstream.abort();
        endLive(end);
      };
      const armIdle = (): void => {
        clearTimeout(idle);
        idle = setTimeout(() => ended({ kind: 'upstream_error', code: 524, message: `the upstream sent nothing for ${this.o.idleTimeoutMs} ms` }), this.o.idleTimeoutMs);
      };
      const start = (): void => {
        for (const e of held.splice(0)) this.write(e, upstream);
        live = {
          endpoint,
          translator,
          attemptStart,
          firstContentAt: performance.now(),
          ended: new Promise<StreamEnd>((r) => (endLive = r)),
        };
        armIdle();
        decide({ outcome: 'ok', value: live, upstreamMs: performance.now() - attemptStart });
      };
      this.onLeave = () => {
        upstream.abort();
        decide({ outcome: 'client', status: null, reason: 'client left' });
      };
      upstream.attach({
        data: (chunk) => {
          const events = translator.push(chunk);
          if (decided) {
            if (!live) return;
            armIdle();
            for (const e of events) this.write(e, upstream);
            if (translator.error) ended({ kind: 'upstream_error', ...translator.error });
            return;
          }
          held.push(...events);
          if (translator.error) {
            upstream.abort();
            decide(failureOf(translator.error));
          } else if (translator.started) start();
        },
        end: (failure) => {
          const events = translator.end();
          if (!decided) {
            held.push(...events);
            if (translator.error) return decide(failureOf(translator.error));
            if (!translator.started && !translator.done) return decide({ outcome: failure ? 'network' : 'server', status: 200, reason: failure ?? 'stream ended without content' });
            start();
          } else if (!live) return;
          else for (const e of events) this.write(e, upstream);
          if (translator.error) ended({ kind: 'upstream_error', ...translator.error });
          else if (failure || !translator.done) ended({ kind: 'upstream_error', code: 502, message: 'the upstream stream broke off' });
          else ended({ kind: 'done' });
        },
      });
    });
  }
}
