/** PLACEHOLDER until the adapters branch lands: the anthropic chat wire format. */
import type { ChatAdapter } from '../chat-types';

const unbuilt = (): never => {
  throw new Error('anthropic chat adapter not built yet');
};

/** `adapter: anthropic` in providers.yaml, for chat models. */
export const anthropicChatAdapter: ChatAdapter = { name: 'anthropic', buildRequest: unbuilt, parseResponse: unbuilt, createStream: unbuilt };
