/**
 * The sampler's classifier on a worker thread (see `worker.ts`), started on the first sample, so
 * a process that never samples never starts it. If the thread dies, the samples it held fail
 * (the sampler counts and logs them) and the next sample starts a new one.
 * @module
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Classification, Classify } from '../sampler';
import type { ClassifyReply } from './worker';

/** The worker's entry beside this file (`.js` when compiled, `.ts` under the test runner). */
const ENTRY = path.join(__dirname, `worker${path.extname(__filename)}`);

/**
 * The thread's own heap bounds: it holds compiled regexes and one text of at most 8,000
 * characters at a time, and with Node's default limits it would let garbage grow far past that
 * before collecting. A thread that exceeds them exits, and the next sample starts a new one
 * (see the class).
 */
export const THREAD_HEAP_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 } as const;

/** A classifier thread; `classify` is its {@link Classify}. */
export class ClassifierThread {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, { resolve: (c: Classification) => void; reject: (err: Error) => void }>();
  private nextId = 1;
  private closed = false;

  /** @param preload - a module the thread requires before its entry (tests: a TypeScript loader) */
  constructor(private readonly preload?: string) {}

  /** Classify `text` on the thread. */
  readonly classify: Classify = (text) =>
    new Promise<Classification>((resolve, reject) => {
      if (this.closed) return reject(new Error('classifier thread closed'));
      const id = this.nextId++;
      this.waiting.set(id, { resolve, reject });
      this.thread().postMessage({ id, text });
    });

  private thread(): Worker {
    if (this.worker) return this.worker;
    const code = [this.preload, ENTRY].filter((m) => m !== undefined).map((m) => `require(${JSON.stringify(m)});`).join('');
    const worker = new Worker(code, { eval: true, resourceLimits: THREAD_HEAP_LIMITS });
    worker.unref();
    worker.on('message', (m: ClassifyReply) => {
      const waiter = this.waiting.get(m.id);
      if (!waiter) return;
      this.waiting.delete(m.id);
      if ('error' in m) waiter.reject(new Error(m.error));
      else waiter.resolve({ languageType: m.languageType, category: m.category as Classification['category'] });
    });
    worker.on('error', () => undefined); // the exit handler fails what it held
    worker.once('exit', (code) => {
      if (this.worker === worker) this.worker = null;
      for (const [id, waiter] of this.waiting) {
        this.waiting.delete(id);
        waiter.reject(new Error(`classifier thread exited (${code})`));
      }
    });
    this.worker = worker;
    return worker;
  }

  /** End the thread; pending and later classifications fail. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}
