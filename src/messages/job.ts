/**
 * The Messages door's job: its body as it came, for an Anthropic-format adapter (sent with only the
 * gateway's fields changed, with the client's `anthropic-*` headers), and the canonical form, built
 * once and only if an adapter of another format asks.
 * @module
 */
import type { Exchange } from '../inference/exchange';
import type { ChatJob } from '../providers/chat-types';
import { exchangeOf } from './exchange-in';
import type { MessagesAsk } from './types';

/** The job of one Messages request (every attempt shares it, and so its canonical form). */
export function messagesJob({ body, headers }: MessagesAsk, maxTokens: number | undefined, stream: boolean): ChatJob {
  let exchange: Exchange | undefined;
  return {
    native: { format: 'anthropic-messages', body },
    exchange: () => (exchange ??= exchangeOf(body, maxTokens, stream)),
    stream,
    maxTokens,
    headers,
  };
}
