/**
 * Per-key rate limiting with express-rate-limit over the Kv store of `ratelimit/store.ts`: Redis
 * when configured, so every replica counts against the same window (with hit leases), else the
 * in-process twin.
 *
 * When the store fails (Redis unreachable) the policy is configurable: `open` lets the request
 * through (availability over strictness: the default, since budgets still fail closed), `closed`
 * answers 503. Either way `switchyard_rate_limit_store_errors_total` counts it, the first failure
 * after a success is logged, and limits apply again as soon as Redis answers (every script is
 * sent by EVALSHA with the body on NOSCRIPT, so nothing has to be loaded first).
 * @module
 */
import type { NextFunction, Request, Response } from 'express';
import {
  rateLimit,
  type ClientRateLimitInfo,
  type IncrementResponse,
  type Logger as RateLimitLogger,
  type Options,
  type RateLimitInfo,
  type Store,
} from 'express-rate-limit';
import { RateLimitError, ServiceUnavailableError } from '../errors';
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
  /** What the limit counts per; default the API key (e.g. the organization instead). */
  keyOf?: (req: Request) => string;
}

/** Wrap a store so its failures follow the configured policy instead of erroring the request. */
function guardedStore(inner: Store, opts: RateLimitOptions, metrics: Metrics, logger: Logger): Store {
  let failing = false;
  const onError = (err: unknown): IncrementResponse => {
    if (!failing) logger.warn('rate limit store unavailable', { limiter: opts.name, fail_mode: opts.failMode, error: errorFields(err) });
    failing = true;
    if (opts.failMode === 'closed') {
      metrics.rateLimitStoreErrors.inc({ limiter: opts.name, action: 'fail_closed' });
      throw new ServiceUnavailableError({ reason: 'rate_limit_store_unavailable' }, 1);
    }
    metrics.rateLimitStoreErrors.inc({ limiter: opts.name, action: 'fail_open' });
    // Counted as this window's first hit: express-rate-limit requires totalHits >= 1 and a
    // resetTime for the draft-7 headers (else it logs ERR_ERL_INVALID_HITS / _HEADERS_NO_RESET).
    return { totalHits: 1, resetTime: new Date(Date.now() + opts.windowMs) };
  };
  return {
    prefix: inner.prefix,
    localKeys: inner.localKeys,
    init: (o: Options) => inner.init?.(o),
    increment: async (key: string) => {
      try {
        const counted = await inner.increment(key);
        failing = false;
        return counted;
      } catch (err) {
        return onError(err);
      }
    },
    decrement: async (key: string) => {
      await Promise.resolve(inner.decrement(key)).catch(() => undefined);
    },
    resetKey: async (key: string) => {
      await Promise.resolve(inner.resetKey(key)).catch(() => undefined);
    },
    get: inner.get
      ? async (key: string): Promise<ClientRateLimitInfo | undefined> => {
          try {
            return await inner.get?.(key);
          } catch {
            return undefined;
          }
        }
      : undefined,
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

/** A store that may admit a hit without a promise (a live lease), as `KvRateLimitStore` does. */
export interface LeasingStore extends Store {
  admitLeased?(key: string): IncrementResponse | undefined;
}

/**
 * The IETF draft-7 headers for an admitted hit, exactly as express-rate-limit writes them
 * (`setDraft7Headers` with its `getResetSeconds`); a test compares both on one window.
 */
function draft7Headers(opts: RateLimitOptions): (res: Response, hit: IncrementResponse) => void {
  const windowSeconds = Math.ceil(opts.windowMs / 1000);
  const policy = `${opts.limit};w=${windowSeconds}`;
  return (res, hit) => {
    const reset = hit.resetTime ? Math.max(0, Math.ceil((hit.resetTime.getTime() - Date.now()) / 1000)) : windowSeconds;
    res.setHeader('RateLimit-Policy', policy);
    res.setHeader('RateLimit', `limit=${opts.limit}, remaining=${Math.max(opts.limit - hit.totalHits, 0)}, reset=${reset}`);
  };
}

/**
 * Build a per-key limiter (it must run after `authenticate`). Sends the IETF `RateLimit` /
 * `RateLimit-Policy` headers; a refusal is a 429 `Rate limit exceeded` with `Retry-After` and
 * the hosted service's `X-RateLimit-*` headers, mirrored in `error.metadata.headers`.
 */
export function perKeyRateLimit(store: LeasingStore, metrics: Metrics, logger: Logger, opts: RateLimitOptions) {
  if (opts.limit < 1 || opts.windowMs < 1) throw new Error(`rate limiter ${opts.name}: limit and windowMs must be positive`);
  const keyOf = opts.keyOf ?? ((req: Request): string => req.ctx.key?.hash ?? 'anonymous');
  const setHeaders = draft7Headers(opts);
  const limiter = rateLimit({
    windowMs: opts.windowMs,
    limit: opts.limit,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    store: guardedStore(store, opts, metrics, logger),
    keyGenerator: keyOf,
    passOnStoreError: false,
    logger: rateLimitLogger(logger, opts.name),
    validate: { trustProxy: false, xForwardedForHeader: false, ip: false, keyGeneratorIpFallback: false },
    handler: (req: Request, _res: Response, next: NextFunction) => {
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
  return function rateLimitMiddleware(req: Request, res: Response, next: NextFunction) {
    // Most hits are admitted by the replica's live lease, which is always within the limit. Those
    // are answered here: express-rate-limit's per-hit promise chain (five awaits, debug calls,
    // validations) cost about 2 µs, 2-3 % of an embeddings request. Every other hit (no lease,
    // near the limit, the store failing, refusals) takes its path.
    const leased = store.admitLeased?.(keyOf(req));
    if (leased === undefined) return limiter(req, res, next);
    setHeaders(res, leased);
    next();
  };
}
