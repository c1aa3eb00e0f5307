/**
 * The chat adapter registry: wire-format name (the `adapter` of providers.yaml) → chat adapter.
 * A provider whose format has no entry here serves embeddings only.
 * @module
 */
import type { ChatAdapter } from './chat-types';
import { openaiChatAdapter } from './openai/chat';
import { anthropicChatAdapter } from './anthropic/chat';
import { geminiChatAdapter } from './gemini/chat';
import { azureChatAdapter } from './azure/chat';
import { bedrockChatAdapter } from './bedrock/chat';

/** Every chat wire format the gateway speaks. */
export const CHAT_ADAPTERS: ReadonlyMap<string, ChatAdapter> = new Map(
  [openaiChatAdapter, anthropicChatAdapter, geminiChatAdapter, azureChatAdapter, bedrockChatAdapter].map((a) => [
    a.name,
    a,
  ]),
);

/** The chat adapter for `name`; the catalog loader has already checked that it exists. */
export function chatAdapterFor(name: string): ChatAdapter {
  const adapter = CHAT_ADAPTERS.get(name);
  if (!adapter) throw new Error(`no chat adapter named "${name}"`);
  return adapter;
}
