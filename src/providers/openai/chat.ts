/** `adapter: openai` for chat: OpenAI, Mistral, DeepInfra, Together, Groq, Fireworks, vLLM, Ollama … */
import type { ChatAdapter } from '../chat-types';
import { chatUrl, headers } from './api';
import { toChatRequest } from './chat-request';
import { fromChatResponse } from './chat-response';
import { OpenAIChatStream } from './chat-stream';

/** The OpenAI-compatible chat wire format: the request is OpenAI's, the stream is passed through. */
export const openaiChatAdapter: ChatAdapter = {
  name: 'openai',
  buildRequest: (job, endpoint) => ({ url: chatUrl(endpoint), headers: headers(endpoint), body: JSON.stringify(toChatRequest(job, endpoint)) }),
  parseResponse: fromChatResponse,
  createStream: (head) => new OpenAIChatStream(head),
};
