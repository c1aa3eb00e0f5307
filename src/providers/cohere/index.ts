/** The Cohere v2 embed adapter (text and image content). */
import type { EmbeddingsAdapter } from '../embeddings-types';
import { embedUrl, headers } from './api';
import { fromResponse, toRequest } from './embeddings';

/** `adapter: cohere` in providers.yaml. */
export const cohereAdapter: EmbeddingsAdapter = {
  name: 'cohere',
  buildRequest: (job, endpoint, key) => ({
    url: embedUrl(endpoint),
    headers: headers(key),
    body: JSON.stringify(toRequest(job, endpoint)),
  }),
  parseResponse: fromResponse,
  // Cohere v2 embed: at most 96 texts or inputs per call.
  maxBatch: 96,
};
