/** Where and how to call Cohere's v2 embed endpoint. */
import type { Endpoint } from '../../catalog/types';
import { bearerHeaders } from '../parse';

/** `<base_url>/v2/embed`. */
export function embedUrl(endpoint: Endpoint): string {
  return `${endpoint.provider.baseUrl}/v2/embed`;
}

/** `Authorization: Bearer <key>`. */
export const headers = (key: string | null) => bearerHeaders(key);
