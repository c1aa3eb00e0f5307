/** Where and how to call Gemini: batchEmbedContents for embeddings, generateContent for chat. */
import type { Endpoint } from '../../catalog/types';

/** `<base_url>/models/<model>`; the base URL carries the version (`…/v1beta`). */
function modelUrl(endpoint: Endpoint): string {
  return `${endpoint.provider.baseUrl}/models/${encodeURIComponent(endpoint.upstreamModel)}`;
}

/** `<base_url>/models/<model>:batchEmbedContents`. */
export function batchEmbedUrl(endpoint: Endpoint): string {
  return `${modelUrl(endpoint)}:batchEmbedContents`;
}

/** `:generateContent`, or for a stream `:streamGenerateContent?alt=sse` (SSE framing instead of a JSON array). */
export function generateUrl(endpoint: Endpoint, stream: boolean): string {
  return `${modelUrl(endpoint)}${stream ? ':streamGenerateContent?alt=sse' : ':generateContent'}`;
}

/** Gemini authenticates with `x-goog-api-key`. */
export function headers(key: string | null): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json' };
  if (key) h['x-goog-api-key'] = key;
  return h;
}

/** Gemini signals overload as 503 UNAVAILABLE "The model is overloaded" (→ 529). */
export function isOverloaded(status: number, text: string): boolean {
  return status === 503 && /overload|UNAVAILABLE/i.test(text);
}
