/** The OpenAI-compatible adapter: OpenAI, Mistral, DeepInfra, Together, Nebius, Ollama, vLLM, TEI … */
import type { EmbeddingsAdapter } from '../embeddings-types';
import { embeddingsUrl, headers } from './api';
import { fromResponse, toRequest } from './embeddings';

/** `adapter: openai` in providers.yaml. */
export const openaiAdapter: EmbeddingsAdapter = {
  name: 'openai',
  buildRequest: (job, endpoint, key) => ({
    url: embeddingsUrl(endpoint),
    headers: headers(key),
    body: JSON.stringify(toRequest(job, endpoint)),
  }),
  parseResponse: fromResponse,
};
