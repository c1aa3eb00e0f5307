/**
 * The shared-state layer: Redis in production, an in-process twin when embedded. Both expose
 * the same `Kv` interface and pass the same contract tests. Every state change is an atomic
 * {@link KvScript}: Lua on Redis, a synchronous function on the twin (atomic because JavaScript
 * runs it without interleaving). Nothing reads-then-writes across round trips.
 * @module
 */
import type { MemoryData } from './memory-data';

/** An argument passed to a script; numbers travel as decimal strings, as in Redis. */
export type KvArg = string | number;

/**
 * One atomic operation with two bodies that must behave the same.
 * @typeParam R - the parsed result
 */
export interface KvScript<R> {
  /** Stable name for logs and errors. */
  readonly name: string;
  /** The Lua body, run with EVALSHA (loaded on first use, reloaded on NOSCRIPT). */
  readonly lua: string;
  /** The twin's body: runs against the in-process data with the same keys/args. */
  memory(data: MemoryData, keys: string[], args: string[]): unknown;
  /** Check and convert the raw reply (Redis or twin) into `R`; throw on a malformed reply. */
  parse(reply: unknown): R;
}

/** Called with each message published on a channel, from any replica. */
export type MessageHandler = (message: string) => void;

/** Shared state and messaging for all replicas. */
export interface Kv {
  readonly kind: 'redis' | 'memory';
  /** Prefix applied to every key and channel, so tenants of one Redis (or test files) never collide. */
  readonly prefix: string;
  /** Run an atomic script; `keys` are prefixed by the implementation. */
  run<R>(script: KvScript<R>, keys: string[], args: KvArg[]): Promise<R>;
  /** Publish to every subscriber of `channel` (prefixed) on every replica. */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Subscribe to `channel` (prefixed). Resolves once the subscription is in place (on Redis: once
   * the server has confirmed the SUBSCRIBE), so a message published after that reaches `handler`.
   * Rejects when Redis has not confirmed it in time (unreachable); the handler stays registered and
   * the SUBSCRIBE is sent once Redis is reachable.
   */
  subscribe(channel: string, handler: MessageHandler): Promise<void>;
  /**
   * Register a callback for when messages may have been missed (the subscriber reconnected),
   * so caches that rely on invalidation messages can flush themselves.
   */
  onMessagesMissed(handler: () => void): void;
  /** Throws when the backing service is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
