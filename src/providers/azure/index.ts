/** `adapter: azure` for embeddings: Azure OpenAI, OpenAI's embeddings body behind Azure's URLs and auth. */
import type { EmbeddingsAdapter } from '../embeddings-types';
import { openaiAdapter } from '../openai';
import { toRequest } from '../openai/embeddings';
import { authorize, azureHeaders, azureUrl } from './api';
import { contentFilterDetail } from './content-filter';

/** OpenAI's embeddings adapter with Azure's URL (deployment or v1) and `api-key` or Entra header. */
export const azureAdapter: EmbeddingsAdapter = {
  ...openaiAdapter,
  name: 'azure',
  buildRequest: (job, endpoint, key) => ({
    url: azureUrl(endpoint, 'embeddings'),
    headers: azureHeaders(endpoint.provider, key),
    body: JSON.stringify(toRequest(job, endpoint)),
  }),
  authorize,
  errorDetail: contentFilterDetail,
};
