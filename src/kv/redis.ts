/**
 * `Kv` over Redis (ioredis, through its public options only). Commands fail fast while Redis is
 * unreachable (no offline queue) or slow (ioredis's `commandTimeout`), so callers can apply their
 * documented fail-open/fail-closed policy instead of hanging. The commands of one event-loop turn
 * share a socket write (ioredis's `enableAutoPipelining`). Scripts are loaded lazily by SHA and
 * reloaded once on NOSCRIPT (after a Redis restart or SCRIPT FLUSH).
 * @module
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Kv, KvArg, KvScript, MessageHandler } from './kv';

/** SHA1 of each Lua body run so far (EVALSHA's name for it). */
const SHAS = new Map<string, string>();

/**
 * Run `lua` by EVALSHA, sending the body (EVAL, which also caches it in Redis) only when Redis
 * answers NOSCRIPT (first use, or after a restart or SCRIPT FLUSH). `keys` are full key names.
 */
export async function evalScript(client: Redis, lua: string, keys: string[], argv: string[]): Promise<unknown> {
  let sha = SHAS.get(lua);
  if (!sha) {
    sha = createHash('sha1').update(lua).digest('hex');
    SHAS.set(lua, sha);
  }
  try {
    return await client.evalsha(sha, keys.length, ...keys, ...argv);
  } catch (err) {
    if (!String((err as Error).message).includes('NOSCRIPT')) throw err;
    return client.eval(lua, keys.length, ...keys, ...argv);
  }
}

/** Options for {@link RedisKv.connect}. */
export interface RedisKvOptions {
  url: string;
  prefix: string;
  /** How long a command may wait for Redis's answer before it fails with "Command timed out". */
  commandTimeoutMs: number;
}

/** What a {@link RedisKv} reports beyond command results (not part of its options, which are copied to other threads). */
export interface RedisKvHooks {
  /**
   * Called with each `error` event of its connections (refused, reset, DNS...). ioredis keeps
   * reconnecting on its own; commands meanwhile fail, so this is for logs and metrics only.
   */
  onConnectionError?: (err: Error) => void;
}

/** Redis-backed `Kv` shared by all replicas. */
export class RedisKv implements Kv {
  readonly kind = 'redis' as const;
  private subscriber: Redis | undefined;
  private readonly handlers = new Map<string, MessageHandler[]>();
  private readonly missedHandlers: Array<() => void> = [];

  private constructor(
    readonly client: Redis,
    /** How it was opened; another thread opens its own connection with these (the usage writer). */
    readonly options: RedisKvOptions,
    private readonly onConnectionError: (err: Error) => void,
  ) {}

  get prefix(): string {
    return this.options.prefix;
  }

  /**
   * Create the client and try to connect. A Redis that is down at boot does not stop the
   * gateway: readiness reports it, and ioredis keeps reconnecting in the background.
   */
  static async connect(options: RedisKvOptions, hooks: RedisKvHooks = {}): Promise<RedisKv> {
    if (!Number.isInteger(options.commandTimeoutMs) || options.commandTimeoutMs < 1) {
      throw new Error(`RedisKv: bad commandTimeoutMs ${options.commandTimeoutMs}`);
    }
    const client = new Redis(options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      maxRetriesPerRequest: 1,
      commandTimeout: options.commandTimeoutMs,
      connectTimeout: Math.max(1000, options.commandTimeoutMs),
      retryStrategy: (times) => Math.min(times * 200, 2000),
      // How long close() lets a socket end gracefully before destroying it (ioredis: 2 s). A
      // healthy Redis closes at once; a dead or half-open socket would hold shutdown that long.
      disconnectTimeout: 500,
    });
    // A listener must exist (an unhandled `error` event would crash the process); commands and
    // readiness report the failure to callers, the hook to logs and metrics.
    const onError = hooks.onConnectionError ?? (() => undefined);
    client.on('error', onError);
    const kv = new RedisKv(client, options, onError);
    await client.connect().catch(() => undefined);
    return kv;
  }

  async run<R>(script: KvScript<R>, keys: string[], args: KvArg[]): Promise<R> {
    return script.parse(await evalScript(this.client, script.lua, keys.map((k) => this.prefix + k), args.map(String)));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.client.publish(this.prefix + channel, message);
  }

  async subscribe(channel: string, handler: MessageHandler): Promise<void> {
    const sub = this.ensureSubscriber();
    const full = this.prefix + channel;
    const list = this.handlers.get(full) ?? [];
    list.push(handler);
    this.handlers.set(full, list);
    // Not awaited: with Redis down at boot the SUBSCRIBE waits in the subscriber's queue and is
    // sent on connect, instead of blocking startup.
    if (list.length === 1) sub.subscribe(full).catch(() => undefined);
  }

  onMessagesMissed(handler: () => void): void {
    this.missedHandlers.push(handler);
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    this.client.disconnect();
  }

  private ensureSubscriber(): Redis {
    if (this.subscriber) return this.subscriber;
    // A subscriber connection may queue SUBSCRIBE until connected; ioredis re-subscribes after
    // reconnects, but messages published meanwhile are lost: tell caches to flush.
    const sub = this.client.duplicate({ enableOfflineQueue: true, commandTimeout: undefined, maxRetriesPerRequest: null });
    sub.on('error', this.onConnectionError);
    let readyBefore = false;
    sub.on('ready', () => {
      if (readyBefore) for (const h of this.missedHandlers) h();
      readyBefore = true;
    });
    sub.on('message', (channel: string, message: string) => {
      for (const h of this.handlers.get(channel) ?? []) h(message);
    });
    this.subscriber = sub;
    return sub;
  }
}
