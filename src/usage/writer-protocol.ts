/**
 * Messages between the request thread and the usage writer thread (`writer-thread.ts`,
 * `writer-worker.ts`). Plain data only: they cross `postMessage`.
 * @module
 */
import type { RedisKvOptions } from '../kv/redis';
import type { StreamOutboxOptions } from './stream-outbox';

/** What the writer thread is started with. */
export interface WriterData {
  redis: RedisKvOptions;
  postgres: { url: string; schema?: string };
  usage: Omit<StreamOutboxOptions, 'onBatchQueued'>;
  logLevel: string;
}

/** To the writer: drain now; write everything and answer; stop and answer. */
export type ToWriter = { type: 'kick' } | { type: 'flush'; id: number } | { type: 'close'; id: number };

/** One counter's values as prom-client reports them. */
export interface CounterSnapshot {
  name: string;
  values: Array<{ labels: Record<string, string>; value: number }>;
}

/** From the writer. `counters` are running totals since the thread started. */
export type FromWriter =
  | { type: 'failed'; error: string }
  | { type: 'counters'; counters: CounterSnapshot[] }
  | { type: 'done'; id: number; error?: string; counters: CounterSnapshot[] };
