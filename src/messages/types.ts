/**
 * The validated POST /messages body (schema `messages.create.body`) and the pieces of it the door
 * reads. The schema is open (unknown fields and block types pass), so these types name only what
 * the gateway looks at.
 * @module
 */
import type { Wire } from '../wire';

/** `req.valid.body` of POST /messages. */
export type MessagesBody = Wire<'messages.create.body'>;

/** `req.valid.body` of POST /messages/count_tokens. */
export type CountTokensBody = Wire<'messages.count_tokens.body'>;

/** One turn of the conversation. */
export type MessagesTurn = MessagesBody['messages'][number];

/** A content block of a turn (a known one, or any other with a `type`). */
export type Block = Extract<MessagesTurn['content'], readonly unknown[]>[number];

/** A tool definition: a custom tool with `input_schema`, or a typed server tool (`web_search_20250305` …). */
export type MessagesTool = NonNullable<MessagesBody['tools']>[number];

/** What the door answers one request from: the body and the client's Anthropic headers. */
export interface MessagesAsk {
  body: MessagesBody;
  /** `anthropic-version` and `anthropic-beta` as the client sent them (forwarded to Anthropic-format upstreams only). */
  headers: Record<string, string>;
  /** Claude Code's `x-claude-code-session-id`, the record's session when the body names none. */
  agentSession?: string;
}
