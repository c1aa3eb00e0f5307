/** Anthropic Messages API wire types (`POST /v1/messages`), the parts the gateway writes and reads. */

/** Prompt-cache marker on a block (passed through from the client's text parts). */
export type CacheControl = { type: 'ephemeral'; ttl?: string };

/** A text block. */
export interface TextBlock {
  type: 'text';
  text: string;
  cache_control?: CacheControl;
}

/** An image: inline base64 (from a `data:` URL) or fetched by Anthropic from a URL. */
export interface ImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
}

/** A document: a PDF as base64, or plain text. */
export interface DocumentBlock {
  type: 'document';
  source:
    | { type: 'base64'; media_type: 'application/pdf'; data: string }
    | { type: 'text'; media_type: 'text/plain'; data: string };
  title?: string;
}

/** A call the assistant made. */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

/** A tool's answer, sent in a user turn. */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | Array<TextBlock | ImageBlock | DocumentBlock>;
}

/** Claude's reasoning, sent back unchanged (its signature is checked). */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Reasoning Anthropic returned encrypted. */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** Any block of a request message. */
export type RequestBlock =
  TextBlock | ImageBlock | DocumentBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | RedactedThinkingBlock;

/** One turn; Anthropic wants user and assistant turns alternating. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: RequestBlock[];
}

/** `tool_choice`. */
export type AnthropicToolChoice = {
  type: 'auto' | 'any' | 'none' | 'tool';
  name?: string;
  disable_parallel_tool_use?: boolean;
};

/** The request body. */
export interface AnthropicRequest {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: TextBlock[];
  tools?: Array<{ name: string; description?: string; input_schema: Record<string, unknown> }>;
  tool_choice?: AnthropicToolChoice;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  metadata?: { user_id: string };
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' };
  /** Claude 4.6 and later: how hard it thinks with adaptive thinking. */
  output_config?: {
    effort?: 'low' | 'medium' | 'high' | 'max';
    /** Structured outputs (Claude 4.5 and later): the answer's text follows the schema. */
    format?: { type: 'json_schema'; schema: Record<string, unknown> };
  };
  /** Automatic prompt caching: the breakpoint on the last cacheable block, moving forward as the conversation grows. */
  cache_control?: { type: 'ephemeral'; ttl?: string };
  stream?: boolean;
}
