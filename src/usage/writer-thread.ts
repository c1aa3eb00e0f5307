/**
 * The usage writer on its own thread. With Redis, every accepted usage event is an XADD on the
 * request thread; reading the stream back, decoding it and inserting batches into Postgres is
 * the consumer's work, and on the request thread it held the event loop for milliseconds per
 * batch: every request arriving meanwhile waited (a p99 cost), and its CPU came out of the
 * thread that serves requests (about 8 % of its time at full load). Here a worker thread does
 * it with its own connections, so the request thread keeps only the XADDs (and the writes of
 * events Redis refused, which it buffers).
 *
 * The thread is restarted after a pause if it dies; entries it had read but not acknowledged
 * are reclaimed by the next consumer (XAUTOCLAIM), so nothing accepted is lost.
 * @module
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Counter } from 'prom-client';
import type { Redis } from 'ioredis';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { OutboxDeps } from './outbox';
import { StreamOutbox, type StreamOutboxOptions } from './stream-outbox';
import type { UsageEvent, UsageRecorder } from './types';
import type { CounterSnapshot, FromWriter, ToWriter, WriterData } from './writer-protocol';

/** Pause before a writer thread that died is started again. */
const RESTART_DELAY_MS = 1000;

/** The worker's entry beside this file (`.js` when compiled, `.ts` under the test runner). */
const ENTRY = path.join(__dirname, `writer-worker${path.extname(__filename)}`);

/** The writer thread's handle: start, restart, kick, flush, close, and its counters relayed. */
export class UsageWriterThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  private nextId = 1;
  private closing = false;
  private restart: NodeJS.Timeout | undefined;
  /** Counter values already added to ours, per `name|labels`, for this worker's lifetime. */
  private seen = new Map<string, number>();

  /**
   * @param preload - a module the thread requires before its entry; tests pass a TypeScript loader
   */
  constructor(
    private readonly data: WriterData,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly preload?: string,
  ) {
    this.start();
  }

  private start(): void {
    const code = [this.preload, ENTRY].filter((m) => m !== undefined).map((m) => `require(${JSON.stringify(m)});`).join('');
    const worker = new Worker(code, { eval: true, workerData: this.data });
    worker.unref(); // never what keeps the process alive; close() ends it
    this.seen = new Map();
    worker.on('message', (m: FromWriter) => this.onMessage(m));
    worker.on('error', (err) => this.logger.error('usage writer thread failed', { err }));
    worker.once('exit', (code) => this.onExit(worker, code));
    this.worker = worker;
  }

  private onMessage(m: FromWriter): void {
    if (m.type === 'failed') this.logger.error('usage writer thread could not start', { err: m.error });
    if (m.type === 'counters' || m.type === 'done') this.relay(m.counters);
    if (m.type !== 'done') return;
    const waiter = this.waiting.get(m.id);
    this.waiting.delete(m.id);
    if (m.error === undefined) waiter?.resolve();
    else waiter?.reject(new Error(m.error));
  }

  private onExit(worker: Worker, code: number): void {
    if (this.worker === worker) this.worker = undefined;
    for (const waiter of this.waiting.values()) waiter.reject(new Error(`usage writer thread exited (${code})`));
    this.waiting.clear();
    if (this.closing) return;
    this.logger.error('usage writer thread exited; restarting', { code, restart_in_ms: RESTART_DELAY_MS });
    this.restart = setTimeout(() => this.start(), RESTART_DELAY_MS);
    this.restart.unref();
  }

  /** Add what the thread counted since its last report to our own counters. */
  private relay(counters: CounterSnapshot[]): void {
    for (const c of counters) {
      const counter = this.metrics.registry.getSingleMetric(c.name) as Counter | undefined;
      for (const { labels, value } of c.values) {
        const key = `${c.name}|${JSON.stringify(labels)}`;
        const delta = value - (this.seen.get(key) ?? 0);
        this.seen.set(key, value);
        if (counter && delta > 0) counter.inc(labels, delta);
      }
    }
  }

  /** Ask the thread to drain now (a batch is waiting). */
  kick(): void {
    this.worker?.postMessage({ type: 'kick' } satisfies ToWriter);
  }

  /** Resolves once the thread has written everything in the stream (rejects if it could not). */
  flush(): Promise<void> {
    return this.request('flush');
  }

  /** Stop the thread after its running drain; it closes its own connections. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.restart);
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    await this.request('close').catch(() => undefined);
    const timer = setTimeout(() => void worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
  }

  private request(type: 'flush' | 'close'): Promise<void> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new Error('usage writer thread is not running'));
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ type, id } satisfies ToWriter);
    });
  }
}

/** Where the writer thread connects and what it loads first. */
export interface WriterThreadOptions {
  data: Omit<WriterData, 'usage'>;
  preload?: string;
}

/**
 * The Redis Stream outbox with its consumer on the writer thread: `record` is the XADD on this
 * thread as before; `flush` also waits for the thread to have written the stream.
 */
export class ThreadedStreamOutbox implements UsageRecorder {
  private readonly local: StreamOutbox;
  private readonly thread: UsageWriterThread;

  constructor(client: Redis, prefix: string, deps: OutboxDeps, options: StreamOutboxOptions, thread: WriterThreadOptions) {
    const { onBatchQueued: _ignored, ...usage } = options;
    this.thread = new UsageWriterThread({ ...thread.data, usage }, deps.metrics, deps.logger, thread.preload);
    this.local = new StreamOutbox(client, prefix, deps, { ...options, consume: false, onBatchQueued: () => this.thread.kick() });
  }

  record(event: UsageEvent): Promise<void> {
    return this.local.record(event);
  }

  pending(): Promise<UsageEvent[]> {
    return this.local.pending();
  }

  async flush(): Promise<void> {
    await this.local.flush();
    await this.thread.flush();
  }

  async close(): Promise<void> {
    await this.local.close();
    await this.thread.close();
  }
}
