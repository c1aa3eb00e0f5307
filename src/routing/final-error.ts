/**
 * The final status when no attempt succeeded: nothing eligible or every circuit open → 503, the
 * request rejected upstream → 400, timeout → 524, overloaded → 529, rate limited → 429 with
 * Retry-After, any other upstream failure (5xx, invalid body, network) → 502. The metadata names
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
import type { FallbackResult } from './run-with-fallback';

/** Map a failed run to the error the client receives. */
export function finalError(run: Extract<FallbackResult<unknown>, { ok: false }>): GatewayError {
  const { last, lastEndpoint, attempts } = run;
  if (!last || !lastEndpoint) {
    return new ServiceUnavailableError({ reason: run.skippedOpen > 0 ? 'every eligible provider is unavailable (circuit open)' : 'no eligible provider', attempts });
  }
  const metadata = { provider_name: lastEndpoint.provider.name, attempts };
  switch (last.outcome) {
    case 'client':
      return new GatewayError(400, STATUS_MESSAGES[400], { metadata: { ...metadata, error_type: 'invalid_request', provider_code: last.status } });
    case 'timeout':
      return new UpstreamTimeoutError(metadata);
    case 'overloaded':
      return new UpstreamOverloadedError(metadata, last.retryAfterSeconds);
    case 'rate_limited':
      return new RateLimitError(last.retryAfterSeconds ?? 1, metadata);
    default:
      return new UpstreamError(metadata);
  }
}

/** No candidate at all (filters left nothing) → 503 naming why. */
export function noCandidates(): ServiceUnavailableError {
  return new ServiceUnavailableError({ reason: 'no eligible provider for this model and these provider preferences', attempts: [] });
}
