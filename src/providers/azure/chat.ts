/** `adapter: azure` for chat: Azure OpenAI, OpenAI's chat format behind Azure's URLs and auth. */
import type { ChatAdapter } from '../chat-types';
import { openaiChatAdapter } from '../openai/chat';
import { toChatRequest } from '../openai/chat-request';
import { fromChatResponse } from '../openai/chat-response';
import { OpenAIChatStream } from '../openai/chat-stream';
import { authorize, azureHeaders, azureUrl } from './api';
import { contentFilterDetail } from './content-filter';
import { AzureChatStream, AzureEvents } from './stream';

/**
 * OpenAI's adapter with Azure's differences: the URL (deployment or v1), the `api-key` or Entra
 * header, the content filter's 400 passed on as a detail, and its annotations left out of
 * streams as they are of whole answers. The body's `model` is the deployment (the v1 API reads it;
 * the deployment URL makes Azure ignore it).
 */
export const azureChatAdapter: ChatAdapter = {
  ...openaiChatAdapter,
  name: 'azure',
  buildRequest: (job, endpoint, key) => ({
    url: azureUrl(endpoint, 'chat/completions'),
    headers: azureHeaders(endpoint.provider, key),
    body: JSON.stringify(toChatRequest(job, endpoint)),
  }),
  authorize,
  createEvents: () => new AzureEvents(openaiChatAdapter.createEvents()),
  passThrough: {
    parseResponse: fromChatResponse,
    createStream: (head, hide) => new AzureChatStream(new OpenAIChatStream(head, hide === true)),
  },
  errorDetail: contentFilterDetail,
};
