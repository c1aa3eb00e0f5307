/**
 * The chat door's job for an adapter: its own body, passed through by an adapter of its format,
 * and the canonical form, built once and only if an adapter of another format asks.
 * @module
 */
import type { Exchange } from '../inference/exchange';
import type { ChatJob } from '../providers/chat-types';
import { exchangeOf } from './exchange-in';
import { reasoningOf } from './reasoning-in';
import type { ChatBody } from './types';

/** The job of one chat request (every attempt shares it, and so its canonical form). */
export function chatJob(body: ChatBody, maxTokens: number | undefined, stream: boolean): ChatJob {
  let exchange: Exchange | undefined;
  return {
    native: { format: 'openai-chat', body },
    exchange: () => (exchange ??= exchangeOf(body, maxTokens, stream)),
    stream,
    maxTokens,
    hideReasoning: reasoningOf(body)?.exclude === true,
  };
}
