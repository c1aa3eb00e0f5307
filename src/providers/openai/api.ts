/** Where and how to call an OpenAI-compatible endpoint (embeddings and chat). */
import type { Endpoint } from '../../catalog/types';
import { bearerHeaders } from '../parse';

/** `<base_url>/embeddings`; the base URL carries the version (`…/v1`). */
export function embeddingsUrl(endpoint: Endpoint): string {
  return `${endpoint.provider.baseUrl}/embeddings`;
}

/** `<base_url>/chat/completions`. */
export function chatUrl(endpoint: Endpoint): string {
  return `${endpoint.provider.baseUrl}/chat/completions`;
}

/** `<base_url>/responses` (OpenAI's Responses API, where the provider serves it). */
export function responsesUrl(endpoint: Endpoint): string {
  return `${endpoint.provider.baseUrl}/responses`;
}

/** `Authorization: Bearer <key>` when a key is configured. */
export const headers = (key: string | null) => bearerHeaders(key);
