/**
 * The validated POST /chat/completions body (schema `chat.create.body`): OpenAI's request plus
 * the hosted service's extensions (`provider`, `models`, `session_id`, `usage`, `transforms`).
 * @module
 */
import type { ProviderPreferences } from '../routing/preferences';

/** One part of a message's content array. */
export type ChatContentPart =
  | { type: 'text'; text: string; cache_control?: { type: 'ephemeral'; ttl?: string } }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
  | { type: 'input_audio'; input_audio: { data: string; format: string } };

/** A tool call the assistant made (OpenAI's shape). */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One message of the conversation. */
export type ChatMessage =
  | { role: 'system' | 'developer'; content: string | ChatContentPart[]; name?: string }
  | { role: 'user'; content: string | ChatContentPart[]; name?: string }
  | { role: 'assistant'; content?: string | ChatContentPart[] | null; name?: string; tool_calls?: ChatToolCall[]; refusal?: string | null }
  | { role: 'tool'; content: string | ChatContentPart[]; tool_call_id: string };

/** A function the model may call. */
export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
}

/** `tool_choice`: a mode, or one named function. */
export type ChatToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

/** `response_format`. */
export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null } };

/** `req.valid.body` of POST /chat/completions. */
export interface ChatBody {
  /** Required unless `models` is given (the first of `models` is then the model). */
  model?: string;
  /** Models to fall back to, in order, after `model`'s endpoints (the hosted service's extension). */
  models?: string[];
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  top_k?: number | null;
  frequency_penalty?: number | null;
  presence_penalty?: number | null;
  repetition_penalty?: number | null;
  min_p?: number | null;
  seed?: number | null;
  stop?: string | string[] | null;
  logprobs?: boolean | null;
  top_logprobs?: number | null;
  logit_bias?: Record<string, number> | null;
  response_format?: ChatResponseFormat;
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean | null;
  n?: 1;
  user?: string;
  session_id?: string;
  provider?: ProviderPreferences | null;
  /** The hosted service's usage switch; usage is always in the answer here, so it changes nothing. */
  usage?: { include?: boolean };
  transforms?: string[];
  metadata?: Record<string, string>;
  trace?: Record<string, unknown>;
}
