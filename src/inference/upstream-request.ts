/**
 * One attempt's upstream request, the same for every operation and format: the key pool's key,
 * the adapter's request built with it, signed where the format signs (SigV4), the trace headers;
 * and, once the upstream has answered, what its status means for that key.
 * @module
 */
import type { Endpoint, ProviderKey } from '../catalog/types';
import type { KeyPools } from '../routing/key-pool';
import type { UpstreamFailure, UpstreamRequest } from '../transport/outcome';
import type { InjectTrace } from './attempt-runner';

/** What an adapter of either kind offers for building one request. */
export interface RequestBuilder {
  authorize?(req: UpstreamRequest, endpoint: Endpoint, key: string | null): Promise<void>;
}

/** A request ready to send, and the key it carries (to settle its outcome on). */
export interface PreparedRequest {
  req: UpstreamRequest;
  key: ProviderKey | null;
}

/** Build `endpoint`'s request with the pool's key; a failure when no key is usable or signing failed. */
export async function prepareRequest(
  keys: KeyPools,
  adapter: RequestBuilder,
  endpoint: Endpoint,
  build: (key: string | null) => UpstreamRequest,
  inject: InjectTrace | undefined,
): Promise<PreparedRequest | UpstreamFailure> {
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
  return { req, key: pick.key };
}

/** Tell the pool what the upstream said to an attempt with `prepared`'s key. */
export function settleKey(
  keys: KeyPools,
  endpoint: Endpoint,
  prepared: PreparedRequest,
  result: { outcome: string; status?: number | null; retryAfterSeconds?: number },
): void {
  if (result.outcome === 'ok') return;
  void keys.settle(endpoint.provider, prepared.key, result.status ?? null, result.retryAfterSeconds);
}
