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

/** A `function` tool, as the schema's `$defs.functionTool` checks it (if/then: not typed from the schema). */
export interface FunctionToolParam {
  type: 'function';
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
}

/** A `custom` tool (free-form input, e.g. Codex's `apply_patch`), as `$defs.customTool` checks it. */
export interface CustomToolParam {
  type: 'custom';
  name: string;
  description?: string;
  format?: { type: 'text' | 'grammar'; syntax?: 'lark' | 'regex'; definition?: string };
}

/** A `namespace` of function and custom tools, as `$defs.namespaceTool` checks it. */
export interface NamespaceToolParam {
  type: 'namespace';
  name: string;
  description?: string;
  tools: Array<FunctionToolParam | CustomToolParam>;
}

/** A hosted tool (web_search, file_search, tool_search, computer_use, mcp …). */
export interface HostedToolParam {
  type: string;
}

/** One entry of `tools`. */
export type RequestTool = FunctionToolParam | CustomToolParam | NamespaceToolParam | HostedToolParam;

/** The body's `tools`, as the schema checked them. */
export const toolsOf = (body: ResponsesBody): RequestTool[] | undefined => body.tools;
