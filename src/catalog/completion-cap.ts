/**
 * The completion bound an endpoint is sent: the client's, never above the endpoint's own maximum
 * output, which the upstream would refuse (or the gateway would reserve for in vain).
 * @module
 */
import type { Endpoint } from './types';

/** `asked` capped at `endpoint`'s maximum output; `asked` itself when it is not a number or the endpoint has none. */
export function cappedCompletion<T>(endpoint: Endpoint, asked: T): T | number {
  const max = endpoint.maxCompletionTokens;
  return typeof asked === 'number' && max !== null && asked > max ? max : asked;
}
