/** `adapter: anthropic`: Anthropic's Messages API, translated to and from OpenAI's chat format. */
import type { ChatAdapter } from '../chat-types';
import { headers, messagesUrl } from './api';
import { toMessagesRequest } from './request';
import { fromMessagesResponse } from './response';
import { AnthropicChatStream } from './stream';

/** The Anthropic chat wire format. */
export const anthropicChatAdapter: ChatAdapter = {
  name: 'anthropic',
  buildRequest: (job, endpoint) => ({ url: messagesUrl(endpoint), headers: headers(endpoint), body: JSON.stringify(toMessagesRequest(job, endpoint)) }),
  parseResponse: fromMessagesResponse,
  createStream: (head) => new AnthropicChatStream(head),
  // Anthropic says "overloaded" with 529 or an `overloaded_error` body (also seen behind a 500/503).
  isOverloaded: (status, bodyText) => status === 529 || bodyText.includes('overloaded_error'),
};
