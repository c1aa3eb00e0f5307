/**
 * `adapter: gemini` for chat: Google's generateContent (AI Studio), mapped from and to the
 * canonical exchange. The same folder's `index.ts` is its embeddings adapter.
 * @module
 */
import type { ChatAdapter } from '../chat-types';
import { generateUrl, headers, isOverloaded } from './api';
import { toGenerateRequest } from './chat-request';
import { fromGenerateResponse } from './chat-response';
import { GeminiEvents } from './chat-stream';

/** The Gemini chat wire format. */
export const geminiChatAdapter: ChatAdapter = {
  name: 'gemini',
  format: 'gemini',
  buildRequest: (job, endpoint, key) => ({
    url: generateUrl(endpoint, job.stream),
    headers: headers(key),
    body: JSON.stringify(toGenerateRequest(job, endpoint)),
  }),
  parseAnswer: fromGenerateResponse,
  createEvents: () => new GeminiEvents(),
  isOverloaded,
};
