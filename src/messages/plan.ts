/**
 * The Messages door's plan: the core's (models, candidates, worst case), then the rule of blocks
 * without a canonical form (documents, server tools, unknown block types): only an
 * Anthropic-format upstream can take them as sent, so the other candidates are left out, and a
 * request no Anthropic-format endpoint may serve is a 400 naming the blocks, never a silent drop.
 * @module
 */
import { narrowedToFormats, type ChatPlan } from '../chat/plan';
import type { ChatService } from '../chat/service';
import { ValidationError } from '../errors';
import { MESSAGES_DOOR } from './door';
import { unmappable } from './exchange-in';
import type { MessagesAsk } from './types';

/** The most blocks a 400 names. */
const NAMED = 5;

/** Plan `ask` on `chat` (see the module comment). */
export function planMessages(chat: ChatService, ask: MessagesAsk): ChatPlan {
  const plan = chat.plan(MESSAGES_DOOR, ask);
  const foreign = unmappable(ask.body);
  if (foreign.length === 0) return plan;
  return narrowedToFormats(
    plan,
    (format) => format === 'anthropic-messages',
    () =>
      new ValidationError(
        foreign.slice(0, NAMED).map((where) => ({
          path: `body.${where.split(' ')[0]}`,
          message: `${where.split(' ')[1]} has no form in the wire format of ${plan.primary.id}'s providers (only Anthropic-format upstreams take it as sent); remove it or use an Anthropic model`,
        })),
      ),
  );
}
