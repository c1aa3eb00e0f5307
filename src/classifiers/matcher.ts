/**
 * Runs classifier rules on a worker thread with a deadline. Patterns pass safe-regex2 and a
 * length cap at creation, but no static check catches every slow pattern (overlapping
 * alternatives or adjacent quantifiers still backtrack polynomially or worse), so matching never
 * runs on the event loop: a text not tagged within `timeoutMs` has its worker terminated (which
 * stops the regular expression mid-run), and the next text starts a fresh one.
 * @module
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ClassifierDimension } from './types';

/** A tagging job sent to the worker. */
export interface MatchRequest {
  id: number;
  /** Identifies the rules (classifier id and version), so the worker compiles them once. */
  key: string;
  dimensions: ClassifierDimension[];
  text: string;
}

/** The worker's answer. */
export interface MatchReply {
  id: number;
  tags: Array<{ name: string; value: string | null }>;
}

/** A text took longer than the matcher's deadline (its worker was terminated). */
export class MatchTimeoutError extends Error {
  constructor() {
    super('classifier matching timed out');
  }
}

const ENTRY = path.join(__dirname, `match-worker${path.extname(__filename)}`);

interface Pending {
  resolve: (tags: MatchReply['tags']) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** One lazily started worker thread; jobs are answered in order. */
export class ThreadMatcher {
  private worker: Worker | undefined;
  /** Resolves once the current worker has loaded its entry. */
  private ready: Promise<void> = Promise.resolve();
  private readonly pending = new Map<number, Pending>();
  private next = 0;

  /** @param preload - a module the thread requires before its entry (tests: a TypeScript loader) */
  constructor(
    private readonly timeoutMs: number,
    private readonly preload?: string,
  ) {}

  /** Tag `text` with `dimensions`; rejects with {@link MatchTimeoutError} past the deadline. */
  async match(key: string, dimensions: ClassifierDimension[], text: string): Promise<MatchReply['tags']> {
    const worker = this.worker ?? this.start();
    await this.ready;
    if (this.worker !== worker) throw new Error('classifier matcher exited');
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.kill(worker, new MatchTimeoutError()), this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, key, dimensions, text } satisfies MatchRequest);
    });
  }

  /** Stop the worker (pending jobs fail). */
  async close(): Promise<void> {
    const w = this.worker;
    if (w) this.kill(w, new Error('classifier matcher closed'));
  }

  private start(): Worker {
    const code = [this.preload, ENTRY].filter((m) => m !== undefined).map((m) => `require(${JSON.stringify(m)});`).join('');
    const worker = new Worker(code, { eval: true });
    worker.unref();
    let loaded: () => void = () => undefined;
    let failed: (err: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      loaded = resolve;
      failed = reject;
    });
    // A start-up failure is reported to the first job; nobody else awaits it.
    this.ready.catch(() => undefined);
    worker.on('message', (m: MatchReply | { ready: true }) => {
      if ('ready' in m) return loaded();
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      p.resolve(m.tags);
    });
    worker.on('error', (err) => {
      failed(err);
      this.kill(worker, err);
    });
    worker.on('exit', () => {
      failed(new Error('classifier matcher exited'));
      this.kill(worker, new Error('classifier matcher exited'));
    });
    this.worker = worker;
    return worker;
  }

  /** Terminate `worker` (if current) and fail every job it held. */
  private kill(worker: Worker, err: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    void worker.terminate();
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
  }
}
