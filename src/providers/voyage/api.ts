/** Where and how to call Voyage AI. */
import type { Endpoint } from '../../catalog/types';
import { bearerHeaders } from '../parse';

/** `<base_url>/v1/embeddings`. */
export function embeddingsUrl(endpoint: Endpoint): string {
  return `${endpoint.provider.baseUrl}/v1/embeddings`;
}

/** `Authorization: Bearer <key>`. */
export const headers = (key: string | null) => bearerHeaders(key);
