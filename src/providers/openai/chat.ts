/** PLACEHOLDER until the adapters branch lands: the openai chat wire format. */
import type { ChatAdapter } from '../chat-types';

const unbuilt = (): never => {
  throw new Error('openai chat adapter not built yet');
};

/** `adapter: openai` in providers.yaml, for chat models. */
export const openaiChatAdapter: ChatAdapter = { name: 'openai', buildRequest: unbuilt, parseResponse: unbuilt, createStream: unbuilt };
