/** The Voyage AI embeddings adapter. */
import type { EmbeddingsAdapter } from '../embeddings-types';
import { embeddingsUrl, headers } from './api';
import { fromResponse, toRequest } from './embeddings';

/** `adapter: voyage` in providers.yaml. */
export const voyageAdapter: EmbeddingsAdapter = {
  name: 'voyage',
  buildRequest: (job, endpoint, key) => ({
    url: embeddingsUrl(endpoint),
    headers: headers(key),
    body: JSON.stringify(toRequest(job, endpoint)),
  }),
  parseResponse: fromResponse,
  // Voyage: at most 1,000 inputs per call.
  maxBatch: 1000,
};
