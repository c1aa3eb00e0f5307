/**
 * The in-process twin of {@link RedisKv}: for the embedded default (one replica, no Redis).
 * Several app instances in one process may share one twin, which is how tests exercise
 * cross-instance behaviour without Redis.
 * @module
 */
import { EventEmitter } from 'node:events';
import type { Kv, KvArg, KvScript, MessageHandler } from './kv';
import { MemoryData } from './memory-data';

/** In-process `Kv`. */
export class MemoryKv implements Kv {
  readonly kind = 'memory' as const;
  readonly data: MemoryData;
  private readonly bus = new EventEmitter();

  /** @param now - clock used for expiry; tests inject a controllable one */
  constructor(
    readonly prefix = 'sy:',
    now: () => number = Date.now,
  ) {
    this.data = new MemoryData(now);
    this.bus.setMaxListeners(0);
  }

  async run<R>(script: KvScript<R>, keys: string[], args: KvArg[]): Promise<R> {
    return script.parse(
      script.memory(
        this.data,
        keys.map((k) => this.prefix + k),
        args.map(String),
      ),
    );
  }

  async publish(channel: string, message: string): Promise<void> {
    // Deliver asynchronously, like a network hop, so publishers never re-enter subscribers.
    setImmediate(() => this.bus.emit(this.prefix + channel, message));
  }

  async subscribe(channel: string, handler: MessageHandler): Promise<void> {
    this.bus.on(this.prefix + channel, handler);
  }

  onMessagesMissed(): void {
    // An in-process bus never drops messages.
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.bus.removeAllListeners();
  }
}
