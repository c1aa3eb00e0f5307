/**
 * The in-process twin of {@link RedisKv}: for the embedded default (one replica, no Redis).
 * Several app instances in one process may share one twin, which is how tests exercise
 * cross-instance behaviour without Redis.
 * @module
 */
import { EventEmitter } from 'node:events';
import type { Kv, KvArg, KvScript, MessageHandler } from './kv';
import { MemoryData } from './memory-data';

/** How often the twin removes expired entries ({@link MemoryData.sweep}). */
export const SWEEP_INTERVAL_MS = 60_000;

/** In-process `Kv`. */
export class MemoryKv implements Kv {
  readonly kind = 'memory' as const;
  readonly data: MemoryData;
  private readonly bus = new EventEmitter();
  private readonly sweeper: NodeJS.Timeout;

  /**
   * @param now - clock used for expiry; tests inject a controllable one
   * @param sweepMs - how often expired entries are removed (the timer never keeps the process alive)
   */
  constructor(
    readonly prefix = 'sy:',
    now: () => number = Date.now,
    sweepMs = SWEEP_INTERVAL_MS,
  ) {
    this.data = new MemoryData(now);
    this.bus.setMaxListeners(0);
    this.sweeper = setInterval(() => this.data.sweep(), sweepMs).unref();
  }

  run<R>(script: KvScript<R>, keys: string[], args: KvArg[]): Promise<R> {
    const prefixed = keys.map((k) => this.prefix + k);
    // In a promise executor, so that a script's error rejects (as from Redis) rather than throws.
    return new Promise((resolve) => resolve(script.parse(script.memory(this.data, prefixed, args.map(String)))));
  }

  publish(channel: string, message: string): Promise<void> {
    // Deliver asynchronously, like a network hop, so publishers never re-enter subscribers.
    setImmediate(() => this.bus.emit(this.prefix + channel, message));
    return Promise.resolve();
  }

  /** In place as soon as it returns (messages are delivered on a later turn), as Redis's is once confirmed. */
  subscribe(channel: string, handler: MessageHandler): Promise<void> {
    this.bus.on(this.prefix + channel, handler);
    return Promise.resolve();
  }

  onMessagesMissed(): void {
    // An in-process bus never drops messages.
  }

  async ping(): Promise<void> {}

  close(): Promise<void> {
    clearInterval(this.sweeper);
    this.bus.removeAllListeners();
    return Promise.resolve();
  }
}
