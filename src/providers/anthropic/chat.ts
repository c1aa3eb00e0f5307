/**
 * `adapter: anthropic`: Anthropic's Messages API, mapped from and to the canonical exchange; the
 * Messages door's body and answers pass through (`pass-through.ts`).
 */
import type { ChatAdapter } from '../chat-types';
import { headers, messagesUrl } from './api';
import { messagesBody } from './request';
import { fromMessagesResponse } from './response';
import { AnthropicEvents } from './stream';
import { messagesPassThrough } from './pass-through';

/** The Anthropic chat wire format. */
export const anthropicChatAdapter: ChatAdapter = {
  name: 'anthropic',
  format: 'anthropic-messages',
  buildRequest: (job, endpoint, key) => ({
    url: messagesUrl(endpoint),
    headers: headers(key, job.native?.format === 'anthropic-messages' ? job.headers : undefined),
    body: messagesBody(job, endpoint),
  }),
  parseAnswer: fromMessagesResponse,
  createEvents: () => new AnthropicEvents(),
  messagesPassThrough,
  // Anthropic says "overloaded" with 529 or an `overloaded_error` body (also seen behind a 500/503).
  isOverloaded: (status, bodyText) => status === 529 || bodyText.includes('overloaded_error'),
};
