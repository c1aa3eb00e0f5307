/** `adapter: openai` for chat: OpenAI, Mistral, DeepInfra, Together, Groq, Fireworks, vLLM, Ollama … */
import type { ChatAdapter } from '../chat-types';
import { chatUrl, headers, responsesUrl } from './api';
import { answerOf, OpenAIEvents } from './chat-canonical';
import { toChatRequest } from './chat-request';
import { fromChatResponse } from './chat-response';
import { OpenAIChatStream } from './chat-stream';
import { upstreamJson } from '../upstream-json';
import { responsesPassThrough } from './responses-pass-through';
import { toResponsesRequest } from './responses-request';

/**
 * The OpenAI-compatible chat wire format. The chat door's body is sent as the client wrote it (but
 * for the gateway's fields) and its answers pass through, a stream event by event; so are the
 * Responses door's, to a provider that serves OpenAI's `/responses` (`responses-pass-through.ts`).
 */
export const openaiChatAdapter: ChatAdapter = {
  name: 'openai',
  format: 'openai-chat',
  buildRequest: (job, endpoint, key) => {
    if (job.native?.format === 'openai-responses' && responsesPassThrough.serves(endpoint)) {
      const responses = job.native.body;
      return {
        url: responsesUrl(endpoint),
        headers: headers(key),
        body: upstreamJson(toResponsesRequest(responses, job, endpoint), responses),
      };
    }
    const body = toChatRequest(job, endpoint);
    const native = job.native?.format === 'openai-chat' ? job.native.body : null;
    return {
      url: chatUrl(endpoint),
      headers: headers(key),
      body: native ? upstreamJson(body, native) : JSON.stringify(body),
    };
  },
  parseAnswer: (body) => {
    const parsed = fromChatResponse(body);
    return parsed && answerOf(parsed);
  },
  createEvents: () => new OpenAIEvents(),
  passThrough: {
    parseResponse: fromChatResponse,
    createStream: (head, hide) => new OpenAIChatStream(head, hide === true),
  },
  responsesPassThrough,
};
