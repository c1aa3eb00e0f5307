/**
 * The validated POST /chat/completions body (schema `chat.create.body`): OpenAI's request plus
 * the hosted service's extensions (`provider`, `models`, `session_id`, `usage`, `transforms`).
 * @module
 */
import type { Wire } from '../wire';

/** `req.valid.body` of POST /chat/completions (schema `chat.create.body`). */
export type ChatBody = Wire<'chat.create.body'>;

/** One message of the conversation. */
export type ChatMessage = ChatBody['messages'][number];

/** One part of a message's content array. */
export type ChatContentPart = Extract<NonNullable<ChatMessage['content']>, readonly unknown[]>[number];

/** A tool call the assistant made (OpenAI's shape). */
export type ChatToolCall = NonNullable<Extract<ChatMessage, { role: 'assistant' }>['tool_calls']>[number];

/** A function the model may call. */
export type ChatTool = NonNullable<ChatBody['tools']>[number];

/** `tool_choice`: a mode, or one named function. */
export type ChatToolChoice = NonNullable<ChatBody['tool_choice']>;

/** `response_format`. */
export type ChatResponseFormat = NonNullable<ChatBody['response_format']>;
