/** The Google Gemini (AI Studio) batchEmbedContents adapter. */
import type { EmbeddingsAdapter } from '../embeddings-types';
import { batchEmbedUrl, headers, isOverloaded } from './api';
import { fromResponse, toRequest } from './embeddings';

/** `adapter: gemini` in providers.yaml. */
export const geminiAdapter: EmbeddingsAdapter = {
  name: 'gemini',
  buildRequest: (job, endpoint, key) => ({
    url: batchEmbedUrl(endpoint),
    headers: headers(key),
    body: JSON.stringify(toRequest(job, endpoint)),
  }),
  parseResponse: fromResponse,
  // batchEmbedContents: at most 100 requests per call.
  maxBatch: 100,
  isOverloaded,
};
