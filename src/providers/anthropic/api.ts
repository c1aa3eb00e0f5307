/** Where and how to call Anthropic's Messages API. */
import type { Endpoint } from '../../catalog/types';

/** The API version every request names (the one whose wire format these files speak). */
export const ANTHROPIC_VERSION = '2023-06-01';

/** `<base_url>/messages`; the base URL carries the version (`…/v1`). */
export function messagesUrl(endpoint: Endpoint): string {
  return `${endpoint.provider.baseUrl}/messages`;
}

/** The client headers a Messages door request forwards to an Anthropic-format upstream. */
export const FORWARDED_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;

/**
 * `x-api-key` (not a bearer token) and the API version; a Messages door request's own
 * `anthropic-version` and `anthropic-beta` (`client`) are forwarded as the client sent them.
 */
export function headers(key: string | null, client: Readonly<Record<string, string>> = {}): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION };
  for (const name of FORWARDED_HEADERS) if (client[name]) h[name] = client[name];
  if (key) h['x-api-key'] = key;
  return h;
}
