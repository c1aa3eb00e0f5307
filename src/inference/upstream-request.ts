/**
 * One attempt's upstream call, the same for every operation and format: the key pool's key, the
 * adapter's request built with it, signed where the format signs (SigV4), the trace headers. A
 * pooled key the upstream refuses (401, 403) or rate-limits (429) is settled with the pool and the
 * attempt is made again at once with the next usable key, so traffic moves to the healthy keys
 * within the request; the fallback runner sees only the last try.
 * @module
 */
import type { Endpoint } from '../catalog/types';
import type { AttemptResult } from '../routing/run-with-fallback';
import type { KeyPools } from '../routing/key-pool';
import type { UpstreamRequest } from '../transport/outcome';
import type { InjectTrace } from './attempt-runner';

/** What an adapter of either kind offers for building one request. */
export interface RequestBuilder {
  authorize?(req: UpstreamRequest, endpoint: Endpoint, key: string | null): Promise<void>;
}

/**
 * Run `send` with a request built by `build` for each key the pool offers, until one is not
 * refused by the upstream or the pool has none left.
 */
export async function withPooledKey<T>(
  keys: KeyPools,
  adapter: RequestBuilder,
  endpoint: Endpoint,
  build: (key: string | null) => UpstreamRequest,
  inject: InjectTrace | undefined,
  send: (req: UpstreamRequest) => Promise<AttemptResult<T>>,
): Promise<AttemptResult<T>> {
  const tries = Math.max(1, endpoint.provider.keys.length);
  for (let i = 0; ; i++) {
    const pick = keys.pick(endpoint.provider);
    if ('failure' in pick) return pick.failure;
    const secret = pick.key?.secret ?? null;
    const req = build(secret);
    inject?.(req.headers);
    if (adapter.authorize) {
      try {
        await adapter.authorize(req, endpoint, secret);
      } catch {
        return { outcome: 'server', status: null, reason: 'the request could not be signed' };
      }
    }
    const result = await send(req);
    if (result.outcome === 'ok') return result;
    // A model that is not ready says nothing about the key it was asked with.
    const status = result.unavailable ? null : result.status;
    const settled = keys.settle(endpoint.provider, pick.key, status, result.retryAfterSeconds);
    if (!settled || i + 1 >= tries) return result;
  }
}
