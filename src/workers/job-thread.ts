/**
 * Regex work off the event loop: a worker thread, started by the first job, that answers jobs
 * by id. If the thread dies, or a job outlives its deadline (the thread is then terminated,
 * which stops a runaway regular expression mid-run), the jobs it held fail and the next job
 * starts a fresh thread. The classifiers' matcher and the rankings classifier both run on one.
 * @module
 */
import { Worker, parentPort, type ResourceLimits } from 'node:worker_threads';

/** A job as posted to the thread. */
interface JobMessage<J> {
  id: number;
  job: J;
}

/** What the thread posts back: a job's result or error, or that it has loaded its entry. */
type ThreadMessage<R> = { id: number; result: R } | { id: number; error: string } | { ready: true };

/** Options of {@link JobThread}. */
export interface JobThreadOptions {
  /** The thread's entry module, which calls {@link serveJobs}. */
  entry: string;
  /** Names the thread in the errors of the jobs it fails (`<name> exited`). */
  name: string;
  /** A job not answered within this (counted once the thread has loaded) fails, and the thread is terminated. */
  timeoutMs?: number;
  /** The error such a job fails with. */
  timeoutError?: () => Error;
  resourceLimits?: ResourceLimits;
  /** A module the thread requires before its entry (tests: a TypeScript loader). */
  preload?: string;
}

interface Pending<R> {
  resolve: (result: R) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

/** One lazily started worker thread running jobs of type `J` to results of type `R`. */
export class JobThread<J, R> {
  private worker: Worker | undefined;
  /** Resolves once the current thread has loaded its entry. */
  private ready: Promise<void> = Promise.resolve();
  private readonly pending = new Map<number, Pending<R>>();
  private next = 0;
  private closed = false;

  constructor(private readonly o: JobThreadOptions) {}

  /** Run `job` on the thread. */
  async run(job: J): Promise<R> {
    if (this.closed) throw new Error(`${this.o.name} closed`);
    const worker = this.worker ?? this.start();
    await this.ready;
    if (this.worker !== worker) throw new Error(`${this.o.name} exited`);
    const id = this.next++;
    return new Promise<R>((resolve, reject) => {
      const { timeoutMs, timeoutError } = this.o;
      // Not awaited: kill fails the thread's jobs before it waits for the thread to end, and terminate() does not reject.
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(
              () => void this.kill(worker, timeoutError?.() ?? new Error(`${this.o.name} timed out`)),
              timeoutMs,
            );
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, job } satisfies JobMessage<J>);
    });
  }

  /** End the thread; pending and later jobs fail. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.worker) await this.kill(this.worker, new Error(`${this.o.name} closed`));
  }

  private start(): Worker {
    const code = [this.o.preload, this.o.entry]
      .filter((m) => m !== undefined)
      .map((m) => `require(${JSON.stringify(m)});`)
      .join('');
    const worker = new Worker(code, {
      eval: true,
      ...(this.o.resourceLimits ? { resourceLimits: this.o.resourceLimits } : {}),
    });
    worker.unref();
    let loaded: () => void = () => undefined;
    let failed: (err: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      loaded = resolve;
      failed = reject;
    });
    // A start-up failure is reported to the first job; nobody else awaits it.
    this.ready.catch(() => undefined);
    worker.on('message', (m: ThreadMessage<R>) => {
      if ('ready' in m) return loaded();
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      if ('error' in m) p.reject(new Error(m.error));
      else p.resolve(m.result);
    });
    worker.on('error', (err) => {
      failed(err);
      void this.kill(worker, err);
    });
    worker.on('exit', (code) => {
      const err = new Error(`${this.o.name} exited (${code})`);
      failed(err);
      void this.kill(worker, err);
    });
    this.worker = worker;
    return worker;
  }

  /** Terminate `worker` (if current) and fail every job it held. */
  private async kill(worker: Worker, err: Error): Promise<void> {
    if (this.worker !== worker) return;
    this.worker = undefined;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    await worker.terminate();
  }
}

/** The thread side of {@link JobThread}: answer each job with `handle`'s result or error. */
export function serveJobs<J, R>(handle: (job: J) => R): void {
  const port = parentPort;
  if (!port) return;
  port.on('message', ({ id, job }: JobMessage<J>) => {
    let reply: ThreadMessage<R>;
    try {
      reply = { id, result: handle(job) };
    } catch (err) {
      reply = { id, error: (err as Error).message };
    }
    port.postMessage(reply);
  });
  // Loaded: a job's deadline starts from here, not from the thread's start-up.
  port.postMessage({ ready: true } satisfies ThreadMessage<R>);
}
