/**
 * Rate limits: express-rate-limit, counting in Redis through rate-limit-redis's `RedisStore`
 * (one store per limiter, its own key prefix) so every replica counts against the same window,
 * or in express-rate-limit's own `MemoryStore` when the gateway runs embedded.
 *
 * When the store fails (Redis unreachable) the policy is configurable: `open` lets the request
 * through (availability over strictness: the default, since budgets still fail closed), `closed`
 * answers 503. Either way `switchyard_rate_limit_store_errors_total` counts it, the first failure
 * after a success is logged, and the store is initialised again (its scripts reloaded) so limits
 * apply as soon as Redis answers.
 * @module
 */
import type { NextFunction, Request, Response } from 'express';
import {
  MemoryStore,
  rateLimit,
  type IncrementResponse,
  type Logger as RateLimitLogger,
  type Options,
  type RateLimitInfo,
  type Store,
} from 'express-rate-limit';
import { Cluster } from 'ioredis';
import { RedisStore, type RedisReply, type SendCommandClusterDetails } from 'rate-limit-redis';
import { RateLimitError, ServiceUnavailableError } from '../errors';
import type { Kv } from '../kv/kv';
import { RedisKv } from '../kv/redis';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import { errorFields } from '../observability/error-fields';

/** Options for one limiter. */
export interface RateLimitOptions {
  /** Label and store prefix, e.g. `api`. */
  name: string;
  windowMs: number;
  limit: number;
  failMode: 'open' | 'closed';
  /** What a hit is counted against; the API key by default. */
  keyOf?: (req: Request) => string;
}

/**
 * Makes each limiter's store: rate-limit-redis over the gateway's ioredis client when Redis is
 * configured, else express-rate-limit's in-process `MemoryStore`.
 */
export class RateLimitStores {
  constructor(private readonly kv: Kv) {}

  /** A fresh store for limiter `name` (each limiter needs its own: stores keep the window they were initialised with). */
  storeFor(name: string): Store {
    if (!(this.kv instanceof RedisKv)) return new MemoryStore();
    const { connection } = this.kv;
    const prefix = `${this.kv.prefix}rl:${name}:`;
    if (connection instanceof Cluster)
      return new RedisStore({ prefix, sendCommandCluster: (details) => sendToCluster(connection, details) });
    return new RedisStore({
      prefix,
      sendCommand: (command: string, ...args: string[]) => connection.call(command, ...args) as Promise<number>,
    });
  }
}

/**
 * rate-limit-redis's commands on a Cluster. Its scripts are loaded by SCRIPT LOAD (at init, with
 * no key) and then run by EVALSHA on the counter's node, so a load goes to every primary; the
 * EVALSHA (and any keyed command) is routed by ioredis to the node owning its key's slot. A node
 * that joins later answers NOSCRIPT, and the store loads the script again (everywhere).
 */
async function sendToCluster(cluster: Cluster, { command }: SendCommandClusterDetails): Promise<RedisReply> {
  const [name, ...args] = command as [string, ...string[]];
  if (name.toUpperCase() === 'SCRIPT' && args[0]?.toUpperCase() === 'LOAD') {
    const shas = await Promise.all(cluster.nodes('master').map((node) => node.call(name, ...args)));
    if (shas.length === 0) throw new Error('no Redis Cluster primary reachable to load a rate-limit script');
    return shas[0] as RedisReply;
  }
  return cluster.call(name, ...args) as Promise<RedisReply>;
}

/** Wrap a store so its failures follow the configured policy instead of erroring the request. */
function guardedStore(inner: Store, opts: RateLimitOptions, metrics: Metrics, logger: Logger): Store {
  let failing = false;
  let options: Options | undefined;
  const onError = (err: unknown): IncrementResponse => {
    if (!failing)
      logger.warn('rate limit store unavailable', {
        limiter: opts.name,
        fail_mode: opts.failMode,
        error: errorFields(err),
      });
    failing = true;
    if (opts.failMode === 'closed') {
      metrics.rateLimitStoreErrors.inc({ limiter: opts.name, action: 'fail_closed' });
      throw new ServiceUnavailableError({ reason: 'rate_limit_store_unavailable' }, 1);
    }
    metrics.rateLimitStoreErrors.inc({ limiter: opts.name, action: 'fail_open' });
    // Counted as this window's first hit: express-rate-limit requires totalHits >= 1 and a
    // resetTime for the draft-7 headers.
    return { totalHits: 1, resetTime: new Date(Date.now() + opts.windowMs) };
  };
  return {
    prefix: inner.prefix,
    localKeys: inner.localKeys,
    init: (o: Options) => {
      options = o;
      // Redis may be down at boot: the first increment reports it, and retries the init.
      Promise.resolve(inner.init?.(o)).catch(() => undefined);
    },
    increment: async (key: string) => {
      try {
        const counted = await Promise.resolve(inner.increment(key)).catch(async (err: unknown) => {
          // A store initialised while Redis was down holds a failed script load: initialise it
          // again (reloading its scripts) and count once more before giving up.
          if (!options || !inner.init) throw err;
          await inner.init(options);
          return inner.increment(key);
        });
        failing = false;
        return counted;
      } catch (err) {
        return onError(err);
      }
    },
    // Best effort: a lost decrement or reset only leaves a count high until its window ends, and
    // an unavailable store is reported by the increments.
    decrement: async (key: string) => {
      await Promise.resolve(inner.decrement(key)).catch(() => undefined);
    },
    resetKey: async (key: string) => {
      await Promise.resolve(inner.resetKey(key)).catch(() => undefined);
    },
    shutdown: async () => {
      await inner.shutdown?.();
    },
  };
}

/**
 * express-rate-limit's diagnostics (store init failures, misconfiguration warnings) as JSON
 * log lines of ours; its default logger writes multi-line text to the console.
 */
function rateLimitLogger(logger: Logger, name: string): RateLimitLogger {
  const write = (level: 'warn' | 'error') => (error: unknown, message?: string) => {
    logger[level](message ?? 'express-rate-limit', { limiter: name, error: errorFields(error) });
  };
  return { warn: write('warn'), error: write('error') };
}

/** The API key a request was authenticated with (the limiter runs after `authenticate`). */
function keyHashOf(req: Request): string {
  return req.ctx.key?.hash ?? 'anonymous';
}

/**
 * Build a limiter (after `authenticate`). Sends the IETF `RateLimit` / `RateLimit-Policy`
 * headers; a refusal is a 429 `Rate limit exceeded` with `Retry-After` and the hosted service's
 * `X-RateLimit-*` headers, mirrored in `error.metadata.headers`.
 */
export function perKeyRateLimit(stores: RateLimitStores, metrics: Metrics, logger: Logger, opts: RateLimitOptions) {
  if (opts.limit < 1 || opts.windowMs < 1)
    throw new Error(`rate limiter ${opts.name}: limit and windowMs must be positive`);
  return rateLimit({
    windowMs: opts.windowMs,
    limit: opts.limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    store: guardedStore(stores.storeFor(opts.name), opts, metrics, logger),
    keyGenerator: opts.keyOf ?? keyHashOf,
    passOnStoreError: false,
    logger: rateLimitLogger(logger, opts.name),
    validate: { trustProxy: false, xForwardedForHeader: false, ip: false, keyGeneratorIpFallback: false },
    handler: function rateLimited(req: Request, _res: Response, next: NextFunction) {
      metrics.rateLimited.inc({ limiter: opts.name });
      const info = (req as Request & { rateLimit?: RateLimitInfo }).rateLimit;
      const resetTime = info?.resetTime?.getTime() ?? Date.now() + opts.windowMs;
      const retryAfter = Math.max(1, Math.ceil((resetTime - Date.now()) / 1000));
      // The hosted service's own-limit headers (Reset in epoch ms), sent only on 429s, and
      // mirrored in error.metadata.headers as its 429 bodies do.
      const headers = {
        'X-RateLimit-Limit': String(opts.limit),
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(resetTime),
      };
      next(new RateLimitError(retryAfter, { headers }, headers));
    },
  });
}
