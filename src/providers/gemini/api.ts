/** Where and how to call Gemini's batchEmbedContents. */
import type { Endpoint } from '../../catalog/types';

/** `<base_url>/models/<model>:batchEmbedContents`; the base URL carries the version (`…/v1beta`). */
export function batchEmbedUrl(endpoint: Endpoint): string {
  return `${endpoint.provider.baseUrl}/models/${encodeURIComponent(endpoint.upstreamModel)}:batchEmbedContents`;
}

/** Gemini authenticates with `x-goog-api-key`. */
export function headers(key: string | null): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json' };
  if (key) h['x-goog-api-key'] = key;
  return h;
}
