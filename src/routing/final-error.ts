/**
 * The final status when no attempt succeeded: every circuit open → 503 (with availability), the
 * request rejected upstream → 400, timeout → 524, overloaded → 529, rate limited → 429 with
 * Retry-After, a model not ready to serve → 503, any other upstream failure (5xx, invalid body, network) → 502. The metadata names
 * each attempt and nothing from upstream bodies.
 * @module
 */
import {
  GatewayError,
  RateLimitError,
  ServiceUnavailableError,
  STATUS_MESSAGES,
  UpstreamError,
  UpstreamOverloadedError,
  UpstreamTimeoutError,
} from '../errors';
import type { CatalogModel, Endpoint } from '../catalog/types';
import type { FallbackResult } from './run-with-fallback';
import { temporarilyUnavailable } from './availability';

/** The message of a 400 whose provider's content filter refused the prompt (its verdict in `metadata.content_filter`). */
export const CONTENT_FILTER_MESSAGE = "The provider's content filter refused the prompt";

/**
 * Map a failed run to the error the client receives.
 * @param tried - the candidates the run had; when none was attempted (every circuit open) they are the affected providers
 * @param retryAfterS - how long until an open circuit lets a probe through (the breaker's cooldown)
 */
export function finalError(
  run: Extract<FallbackResult<unknown>, { ok: false }>,
  model: CatalogModel,
  tried: readonly Endpoint[],
  retryAfterS: number,
): GatewayError {
  const { last, lastEndpoint, attempts } = run;
  if (!last || !lastEndpoint) {
    return temporarilyUnavailable(model, 'every eligible provider is unavailable (circuit open)', tried, retryAfterS);
  }
  const metadata = {
    provider_name: lastEndpoint.provider.name,
    attempts: attempts.map(({ provider, outcome, status }) => ({ provider, outcome, status })),
  };
  switch (last.outcome) {
    case 'client':
      if (last.detail?.code === 'content_filter')
        return new GatewayError(400, CONTENT_FILTER_MESSAGE, {
          metadata: {
            ...metadata,
            error_type: 'content_filter',
            provider_code: last.status,
            content_filter: last.detail.data,
          },
        });
      return new GatewayError(400, STATUS_MESSAGES[400], {
        metadata: { ...metadata, error_type: 'invalid_request', provider_code: last.status },
      });
    case 'timeout':
      return new UpstreamTimeoutError(metadata);
    case 'overloaded':
      return new UpstreamOverloadedError(metadata, last.retryAfterSeconds);
    case 'rate_limited':
      return new RateLimitError(last.retryAfterSeconds ?? 1, metadata);
    case 'server':
      if (last.unavailable) return new ServiceUnavailableError(metadata, last.retryAfterSeconds ?? 1);
      return new UpstreamError(metadata);
    case 'network':
    default:
      return new UpstreamError(metadata);
  }
}
