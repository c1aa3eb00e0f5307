/** Where and how to call Anthropic's Messages API. */
import type { Endpoint } from '../../catalog/types';

/** The API version every request names (the one whose wire format these files speak). */
export const ANTHROPIC_VERSION = '2023-06-01';

/** `<base_url>/messages`; the base URL carries the version (`…/v1`). */
export function messagesUrl(endpoint: Endpoint): string {
  return `${endpoint.provider.baseUrl}/messages`;
}

/** `x-api-key` (not a bearer token) and the API version. */
export function headers(endpoint: Endpoint): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION };
  if (endpoint.provider.apiKey) h['x-api-key'] = endpoint.provider.apiKey;
  return h;
}
