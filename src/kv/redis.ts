/**
 * `Kv` over Redis (ioredis, through its public options only). Commands fail fast while Redis is
 * unreachable (no offline queue) or slow (ioredis's `commandTimeout`), so callers can apply their
 * documented fail-open/fail-closed policy instead of hanging. The commands of one event-loop turn
 * share a socket write (ioredis's `enableAutoPipelining`). Scripts are loaded lazily by SHA and
 * reloaded once on NOSCRIPT (after a Redis restart or SCRIPT FLUSH). Redis is one server, a
 * Sentinel-managed primary or a Redis Cluster (see redis-topology.ts); on a Cluster every
 * script's keys must share one hash slot (`{tag}` in the key names), and pub/sub is cluster-wide.
 * @module
 */
import { createHash } from 'node:crypto';
import type { Kv, KvArg, KvScript, MessageHandler } from './kv';
import { createRedisClient, type RedisClient, type RedisTopology } from './redis-topology';

/** SHA1 of each Lua body run so far (EVALSHA's name for it). */
const SHAS = new Map<string, string>();

/**
 * Run `lua` by EVALSHA, sending the body (EVAL, which also caches it in Redis) only when Redis
 * answers NOSCRIPT (first use, or after a restart or SCRIPT FLUSH). `keys` are full key names.
 */
export async function evalScript(client: RedisClient, lua: string, keys: string[], argv: string[]): Promise<unknown> {
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

/** Options for {@link RedisKv.connect}: where Redis is (one of `url`, `cluster`, `sentinel`), the key prefix, the timeout. */
export interface RedisKvOptions extends RedisTopology {
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
  private subscriber: RedisClient | undefined;
  private readonly handlers = new Map<string, MessageHandler[]>();
  /** Each subscribed channel's SUBSCRIBE, settled by Redis's confirmation. */
  private readonly confirmations = new Map<string, Promise<void>>();
  private readonly missedHandlers: Array<() => void> = [];

  private constructor(
    /** The command client: one server's (standalone, Sentinel) or a Cluster's. */
    readonly connection: RedisClient,
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
    const client = createRedisClient(options, { commandTimeoutMs: options.commandTimeoutMs });
    // A listener must exist (an unhandled `error` event would crash the process); commands and
    // readiness report the failure to callers, the hook to logs and metrics.
    const onError = hooks.onConnectionError ?? (() => undefined);
    client.on('error', onError);
    // A Cluster reports each node's connection errors separately from its own.
    client.on('node error', onError);
    const kv = new RedisKv(client, options, onError);
    await client.connect().catch(() => undefined); // down at boot: see above
    return kv;
  }

  async run<R>(script: KvScript<R>, keys: string[], args: KvArg[]): Promise<R> {
    return script.parse(
      await evalScript(
        this.connection,
        script.lua,
        keys.map((k) => this.prefix + k),
        args.map(String),
      ),
    );
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.connection.publish(this.prefix + channel, message);
  }

  /**
   * Resolves on Redis's confirmation of the SUBSCRIBE (ioredis resolves `subscribe()` on it), the
   * same for a standalone, Sentinel or Cluster subscriber; a second handler of a channel waits for
   * the same confirmation. Redis down: the SUBSCRIBE waits in the subscriber's queue and is sent on
   * connect, and this rejects after {@link RedisKv.subscribeWaitMs} so that startup is not blocked.
   */
  async subscribe(channel: string, handler: MessageHandler): Promise<void> {
    const sub = this.ensureSubscriber();
    const full = this.prefix + channel;
    const list = this.handlers.get(full) ?? [];
    list.push(handler);
    this.handlers.set(full, list);
    let confirmed = this.confirmations.get(full);
    if (!confirmed) {
      confirmed = sub.subscribe(full).then(() => undefined);
      // A SUBSCRIBE that failed (the subscriber was closed) is sent again by the next subscribe.
      confirmed.catch(() => this.confirmations.delete(full));
      this.confirmations.set(full, confirmed);
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `Redis has not confirmed the subscription to ${channel} within ${this.subscribeWaitMs} ms; it takes effect once Redis is reachable`,
            ),
          ),
        this.subscribeWaitMs,
      );
    });
    try {
      await Promise.race([confirmed, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** How long {@link subscribe} waits for the confirmation: time to connect, then to answer a command. */
  private get subscribeWaitMs(): number {
    return Math.max(1000, this.options.commandTimeoutMs) + this.options.commandTimeoutMs;
  }

  onMessagesMissed(handler: () => void): void {
    this.missedHandlers.push(handler);
  }

  async ping(): Promise<void> {
    await this.connection.ping();
  }

  close(): Promise<void> {
    this.subscriber?.disconnect();
    this.connection.disconnect();
    return Promise.resolve();
  }

  private ensureSubscriber(): RedisClient {
    if (this.subscriber) return this.subscriber;
    // A subscriber connection may queue SUBSCRIBE until connected; ioredis re-subscribes after
    // reconnects, but messages published meanwhile are lost: tell caches to flush.
    const sub = createRedisClient(this.options, { commandTimeoutMs: this.options.commandTimeoutMs, subscriber: true });
    sub.on('error', this.onConnectionError);
    sub.on('node error', this.onConnectionError);
    sub.connect().catch(() => undefined); // its connection errors reach onConnectionError; ioredis reconnects
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
