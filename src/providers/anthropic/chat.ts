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
  // Documents are PDFs and plain text.
  media: { imageUrls: true, readsDocument: (type) => /^(application\/pdf|text\/[\w.+-]+)$/.test(type) },
  // JSON output is structured outputs, which takes a schema (Claude 4.5 and later).
  jsonOutput: 'schema',
  // A budget unless the catalog marks the endpoint adaptive (Claude 4.6 and later).
  thinksByBudget: (e) => e.thinking === undefined || e.thinking === 'budget',
};
