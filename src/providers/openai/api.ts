/** Where and how to call an OpenAI-compatible embeddings endpoint. */
import type { Endpoint } from '../../catalog/types';
import { bearerHeaders } from '../parse';

/** `<base_url>/embeddings`; the base URL carries the version (`…/v1`). */
export function embeddingsUrl(endpoint: Endpoint): string {
  return `${endpoint.provider.baseUrl}/embeddings`;
}

/** `Authorization: Bearer <key>` when a key is configured. */
export const headers = (endpoint: Endpoint) => bearerHeaders(endpoint.provider.apiKey);
