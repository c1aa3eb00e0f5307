/**
 * The validated POST /responses body (schema `responses.create.body`) and its parts, named.
 * @module
 */
import type { Wire } from '../wire';

/** `req.valid.body` of POST /responses. */
export type ResponsesBody = Wire<'responses.create.body'>;

/** One item of an `input` array. */
export type InputItem = Extract<NonNullable<ResponsesBody['input']>, readonly unknown[]>[number];

/** A message item (`type: "message"` or just `role` and `content`). */
export type MessageItem = Extract<InputItem, { role: unknown }>;

/** One content part of a message item or a tool output. */
export type InputPart = Extract<MessageItem['content'], readonly unknown[]>[number];

/** One entry of `tools`. */
export type RequestTool = NonNullable<ResponsesBody['tools']>[number];
