/**
 * One streamed attempt as an explicit state machine:
 *
 *   holding ──first content──► live ──end / error / idle / client left──► ended
 *      └────── error, timeout, no content, client left (a failed attempt) ──────┘
 *
 * While holding, the translated events are kept back, so a failure is still a failed attempt
 * and the runner may fall back; at the first content they are written and the attempt is a
 * success. While live, events go to the client as they arrive (the upstream paused while the
 * client is slow) until the stream ends, and `ended` says how. The writer of the client's SSE
 * (`sse-writer.ts`) and the translator of the format (a door's) are given; this decides only when.
 *
 * Two options serve sliced budgets (budgets/slices.ts). A meter is told the generated bound after
 * each chunk: while the next slice is being asked for past the hold the upstream is paused, and a
 * refused slice ends the stream (`budget_cut`, the upstream aborted). A whole attempt gathers a
 * whole answer from the stream: it stays holding until the upstream ends, so any failure before
 * then is a failed attempt (the runner may fall back, as for a whole call), and it writes to a
 * sink that gathers rather than to the client.
 * @module
 */
import type { Endpoint } from '../catalog/types';
import type { AttemptResult } from '../routing/run-with-fallback';
import type { OpenStream } from '../transport/dispatch';
import type { OverloadSignal, UpstreamRequest } from '../transport/outcome';
import type { UpstreamHttp } from '../transport/upstream-http';
import { KEEP_ALIVE_EVENT, type StreamSink } from './sse-writer';
import type { SliceMeter } from './slice-meter';

/** How a started stream ended: `client_stalled` is a client that stopped reading for the idle timeout. */
export type StreamEnd =
  | { kind: 'done' }
  | { kind: 'upstream_error'; code: number; message: string }
  | { kind: 'client_left' }
  | { kind: 'client_stalled' }
  | { kind: 'budget_cut' };

/** What the attempt needs of a format's stream translator. */
export interface StreamTranslator {
  /** The upstream's bytes (split anywhere) → whole events for the client. */
  push(chunk: Buffer): string[];
  /** The upstream body ended; whatever was still buffered. */
  end(): string[];
  /** Whether an event with content has been returned: no fallback from then on. */
  readonly started: boolean;
  /** Whether the upstream ended the stream properly. */
  readonly done: boolean;
  /** An error the upstream sent inside the stream. */
  readonly error: { code: number; message: string } | null;
  /** An upper bound on the completion tokens generated so far (what a meter is told); a translator without it cannot be metered. */
  generatedBound?(): number;
}

/** A stream that has started: the endpoint serving it and how to wait for its end. */
export interface LiveStream<T extends StreamTranslator = StreamTranslator> {
  endpoint: Endpoint;
  translator: T;
  /** `performance.now()` when the attempt began (the upstream's share runs from here). */
  attemptStart: number;
  /** `performance.now()` when the first content was written to the client. */
  firstContentAt: number;
  ended: Promise<StreamEnd>;
}

/** The sliced-budget options (see the module comment). */
export interface StreamMetering {
  meter?: SliceMeter;
  /** Gather a whole answer: hold until the upstream ends. */
  whole?: boolean;
}

/** The stream's timing. */
export interface StreamTiming {
  /** How long the upstream has to send nothing before a started stream ends with a 524. */
  idleTimeoutMs: number;
  /** How often a keep-alive comment goes out while the attempt is holding. */
  keepAliveMs: number;
  /** The most the upstream may send (bytes), and for how long (ms), before the stream is ended. */
  maxBytes: number;
  maxMs: number;
}

type State = 'holding' | 'live' | 'ended';

/** The upstream's in-stream error as a failed attempt, before anything was sent. */
function failureOf(error: { code: number; message: string }): AttemptResult<never> {
  if (error.code === 529) return { outcome: 'overloaded', status: 529, reason: 'upstream overloaded (in stream)' };
  if (error.code === 429) return { outcome: 'rate_limited', status: 429, reason: 'upstream rate limit (in stream)' };
  return { outcome: 'server', status: 200, reason: 'upstream error event before content' };
}

const CLIENT_LEFT: AttemptResult<never> = { outcome: 'client', status: null, reason: 'client left' };

/** One attempt's state machine over an open upstream stream. */
class StreamAttempt<T extends StreamTranslator> {
  private state: State = 'holding';
  private readonly held: string[] = [];
  private firstContent: NodeJS.Timeout | undefined;
  private keepAlive: NodeJS.Timeout | undefined;
  private idle: NodeJS.Timeout | undefined;
  private cap: NodeJS.Timeout | undefined;
  /** Bytes the upstream has sent. */
  private bytes = 0;
  private decide: (result: AttemptResult<LiveStream<T>>) => void = () => undefined;
  private endLive: (end: StreamEnd) => void = () => undefined;
  /** Paused for the slice being asked for. */
  private awaitingSlice = false;

  constructor(
    private readonly upstream: OpenStream,
    private readonly translator: T,
    private readonly writer: StreamSink,
    private readonly endpoint: Endpoint,
    private readonly attemptStart: number,
    private readonly timing: StreamTiming,
    private readonly metering: StreamMetering = {},
  ) {}

  /** Follow the upstream; resolves once the attempt is decided (the live stream's `ended` follows). */
  run(timeoutMs: number): Promise<AttemptResult<LiveStream<T>>> {
    return new Promise((resolve) => {
      this.decide = resolve;
      // The 200 waits for the first content, so a failure before it still gets its own status; a
      // wait longer than the keep-alive interval sends it, to keep proxies from closing the connection.
      if (!this.metering.whole)
        this.keepAlive = setInterval(() => {
          this.writer.open();
          this.writer.write(KEEP_ALIVE_EVENT);
        }, this.timing.keepAliveMs);
      this.firstContent = setTimeout(
        () => this.fail({ outcome: 'timeout', status: null, reason: `no content within ${Math.round(timeoutMs)} ms` }),
        timeoutMs,
      );
      this.writer.whenLeft(() => this.fail(CLIENT_LEFT));
      this.cap = setTimeout(() => this.capped(`ran for ${this.timing.maxMs} ms`), this.timing.maxMs);
      this.upstream.attach({ data: (chunk) => this.data(chunk), end: (failure) => this.bodyEnded(failure) });
    });
  }

  private data(chunk: Buffer): void {
    if (this.state === 'ended') return;
    this.bytes += chunk.length;
    if (this.bytes > this.timing.maxBytes) return this.capped(`sent over ${this.timing.maxBytes} bytes`);
    const events = this.translator.push(chunk);
    if (this.state === 'live') {
      this.armIdle();
      this.writeAll(events);
      if (this.translator.error) this.end({ kind: 'upstream_error', ...this.translator.error });
      else this.metered();
      return;
    }
    this.held.push(...events);
    if (this.translator.error) this.fail(failureOf(this.translator.error));
    else if (this.translator.started && !this.metering.whole) this.goLive();
    if ((this.state as State) !== 'ended') this.metered();
  }

  /** Tell the meter the generated bound: go on, pause for the slice being asked for, or end as a budget cut. */
  private metered(): void {
    const { meter } = this.metering;
    if (!meter || this.awaitingSlice) return;
    const state = meter.observe(this.translator.generatedBound?.() ?? 0);
    if (state === 'cut') return this.cut();
    if (state === 'covered') return;
    this.awaitingSlice = true;
    this.upstream.pause();
    void meter.decided.then(() => {
      this.awaitingSlice = false;
      if (this.state === 'ended') return;
      // A client that is not reading keeps the upstream paused; its drain resumes it.
      if (!this.writer.waiting) this.upstream.resume();
      this.metered();
    });
  }

  /** The budget has no room for more: what was generated goes out, the upstream is stopped. */
  private cut(): void {
    if (this.state === 'holding') this.goLive();
    this.end({ kind: 'budget_cut' });
  }

  private bodyEnded(failure: string | null): void {
    if (this.state === 'ended') return;
    const events = this.translator.end();
    const t = this.translator;
    if (this.state === 'holding') {
      this.held.push(...events);
      if (t.error) return this.fail(failureOf(t.error));
      if (!t.started && !t.done)
        return this.fail({
          outcome: failure ? 'network' : 'server',
          status: 200,
          reason: failure ?? 'stream ended without content',
        });
      // Gathering a whole answer, a stream that broke off is a failed attempt, as a broken body is.
      if (this.metering.whole && (failure || !t.done))
        return this.fail({
          outcome: failure ? 'network' : 'server',
          status: 200,
          reason: failure ?? 'the upstream stream broke off',
        });
      this.goLive();
    } else this.writeAll(events);
    if (t.error) this.end({ kind: 'upstream_error', ...t.error });
    else if (failure || !t.done)
      this.end({ kind: 'upstream_error', code: 502, message: 'the upstream stream broke off' });
    else this.end({ kind: 'done' });
  }

  /** The stream passed a cap (chat.streamMaxBytes, chat.streamMaxMs): a failed attempt, or a live stream ended with an error. */
  private capped(what: string): void {
    const message = `the upstream stream ${what}, the gateway's limit for one answer`;
    if (this.state === 'holding') this.fail({ outcome: 'server', status: 200, reason: message });
    else this.end({ kind: 'upstream_error', code: 502, message });
  }

  /** holding → live: the held events go out and the attempt is a success. */
  private goLive(): void {
    this.state = 'live';
    this.stopHolding();
    this.writer.open();
    this.writeAll(this.held.splice(0));
    const live: LiveStream<T> = {
      endpoint: this.endpoint,
      translator: this.translator,
      attemptStart: this.attemptStart,
      firstContentAt: performance.now(),
      ended: new Promise<StreamEnd>((r) => (this.endLive = r)),
    };
    this.armIdle();
    this.writer.whenLeft(() => this.end({ kind: 'client_left' }));
    this.decide({ outcome: 'ok', value: live, upstreamMs: performance.now() - this.attemptStart });
  }

  /** holding → ended: a failed attempt (the upstream is given up). */
  private fail(result: AttemptResult<never>): void {
    if (this.state !== 'holding') return;
    this.state = 'ended';
    this.stopHolding();
    clearTimeout(this.cap);
    this.writer.whenLeft(null);
    this.upstream.abort();
    this.decide(result);
  }

  /** live → ended. */
  private end(end: StreamEnd): void {
    if (this.state !== 'live') return;
    this.state = 'ended';
    clearTimeout(this.idle);
    clearTimeout(this.cap);
    this.writer.whenLeft(null);
    if (end.kind !== 'done') this.upstream.abort();
    this.endLive(end);
  }

  private stopHolding(): void {
    clearTimeout(this.firstContent);
    clearInterval(this.keepAlive);
  }

  private armIdle(): void {
    clearTimeout(this.idle);
    const ms = this.timing.idleTimeoutMs;
    this.idle = setTimeout(() => {
      // Paused for a client that does not read, the upstream is silent because of the client.
      if (this.writer.waiting) {
        this.end({ kind: 'client_stalled' });
        this.writer.abandon();
      } else this.end({ kind: 'upstream_error', code: 524, message: `the upstream sent nothing for ${ms} ms` });
    }, ms);
  }

  private writeAll(events: readonly string[]): void {
    for (const e of events) this.writer.write(e, this.upstream);
  }
}

/**
 * One streamed attempt on `endpoint`: open the upstream stream and follow it through the
 * translator; ok once its first content is written (with the 200, unless a keep-alive sent it).
 */
export async function attemptStream<T extends StreamTranslator>(
  http: UpstreamHttp,
  writer: StreamSink,
  call: { req: UpstreamRequest; signal: OverloadSignal; endpoint: Endpoint; translator: () => T },
  timeoutMs: number,
  timing: StreamTiming,
  metering: StreamMetering = {},
): Promise<AttemptResult<LiveStream<T>>> {
  const attemptStart = performance.now();
  if (writer.left) return CLIENT_LEFT;
  const opening = await http.stream(call.req, call.signal, timeoutMs);
  if (opening.outcome !== 'ok') return opening;
  if (writer.left) {
    opening.stream.abort();
    return CLIENT_LEFT;
  }
  const left = Math.max(1, timeoutMs - (performance.now() - attemptStart));
  const attempt = new StreamAttempt(
    opening.stream,
    call.translator(),
    writer,
    call.endpoint,
    attemptStart,
    timing,
    metering,
  );
  return attempt.run(left);
}
