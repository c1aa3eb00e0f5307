/**
 * The canonical model of a chat-like exchange: what every door (chat completions today, Anthropic
 * Messages and OpenAI Responses next) translates its request into and its answer out of, and what
 * every upstream adapter maps from and to. It holds what the formats share (messages of text,
 * image, audio, file, tool-call, tool-result and reasoning parts; tools; usage; stop reasons; the
 * stream's events) and nothing a format alone has.
 *
 * A door whose upstream speaks its own format does not go through it: the job carries the door's
 * body as `native`, and the adapter of that format sends it with only the gateway's fields changed,
 * so unknown fields, thinking signatures and `cache_control` survive byte for byte. The canonical
 * form is built only when an adapter of another format asks for it.
 * @module
 */

/** The wire formats a door or an upstream speaks. */
export type WireFormat = 'openai-chat' | 'anthropic-messages' | 'gemini' | 'bedrock-converse';

/** A prompt-cache marker (Anthropic's `cache_control`), kept on the part it marks. */
export interface CacheControl {
  type: 'ephemeral';
  ttl?: string;
}

/** An image: inline bytes, or a URL the provider fetches. */
export type ImageSource = { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string };

/** How a provider writes reasoning: its signatures are valid only with that provider. */
export type ReasoningFormat = 'anthropic-claude-v1' | 'openai-responses-v1' | 'google-gemini-v1' | 'unknown';

/** One part of a message. */
export type Part =
  | { type: 'text'; text: string; cacheControl?: CacheControl }
  | { type: 'image'; source: ImageSource; detail?: string }
  | { type: 'audio'; data: string; format: string }
  | { type: 'file'; filename?: string; data?: string; fileId?: string; mediaType?: string }
  | { type: 'tool_call'; id: string; name: string; arguments: string }
  | { type: 'tool_result'; callId: string; content: string | Part[]; isError?: boolean }
  | {
      type: 'reasoning';
      format: ReasoningFormat;
      /** The provider's id of the block (Responses' `rs_…`), when it has one. */
      id?: string;
      text?: string;
      /** The provider's signature over `text` (sent back unchanged on the next turn). */
      signature?: string;
      /** Reasoning the provider returned encrypted or redacted (opaque). */
      encrypted?: string;
      /** Whether `text` is a summary of the reasoning rather than the reasoning itself. */
      summary?: boolean;
    };

/** Who wrote a message: `system` and `developer` are instructions, `tool` carries tool results. */
export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

/** One message of the conversation. */
export interface Message {
  role: Role;
  parts: Part[];
}

/** A function the model may call. */
export interface Tool {
  name: string;
  description?: string;
  /** The JSON Schema of its arguments. */
  parameters?: Record<string, unknown>;
  strict?: boolean;
}

/** Whether and which tool the model must call. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** What the answer's text must be. */
export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema?: Record<string, unknown>; strict?: boolean };

/** How hard a reasoning model thinks (OpenAI's `reasoning_effort` / `reasoning.effort`). */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * The reasoning a client asked for, as the hosted service's `reasoning` object has it: an effort
 * (OpenAI's style) or a token budget (Anthropic's), and whether the text is shown. Each adapter
 * maps it to its own control (src/inference/reasoning.ts).
 */
export interface ReasoningRequest {
  /** True: reason (inferred from an effort or budget); false: don't (`enabled: false`, effort `none`); absent: the model's default. */
  enabled?: boolean;
  effort?: ReasoningEffort;
  /** The reasoning token budget. */
  maxTokens?: number;
  /** Bill the reasoning but leave its text out of the answer. */
  exclude?: boolean;
}

/** A request in canonical form. */
export interface Exchange {
  messages: Message[];
  tools?: Tool[];
  toolChoice?: ToolChoice;
  /** False: at most one tool call per turn. */
  parallelToolCalls?: boolean;
  /** The completion bound the client set, if any. */
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  seed?: number;
  responseFormat?: ResponseFormat;
  /** The end user, as the client names them. */
  user?: string;
  /** The reasoning the client asked for, if any (absent: the model's default). */
  reasoning?: ReasoningRequest;
  /** Automatic prompt caching (a top-level `cache_control`): the upstream places the breakpoint itself. */
  cacheControl?: CacheControl;
  stream: boolean;
}

/** Why an answer ended, normalised (the hosted service's finish reasons). */
export type StopReason = 'stop' | 'length' | 'content_filter' | 'tool_calls' | 'error';

/** Token usage as the upstream reported it. `promptTokens` counts cached and cache-written tokens too. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from the provider's prompt cache. */
  cacheReadTokens: number;
  /** Prompt tokens written to the provider's prompt cache. */
  cacheWriteTokens: number;
  /** Completion tokens spent on reasoning, when reported. */
  reasoningTokens: number;
}

/** A whole answer in canonical form (one choice). */
export interface Answer {
  /** The assistant's parts in order: text, reasoning, tool calls. */
  parts: Part[];
  stopReason: StopReason | null;
  /** The stop reason as the upstream said it. */
  nativeStopReason: string | null;
  usage: Usage | null;
  upstreamId: string | null;
}

/** One event of a streamed answer. Tool calls are numbered in the order they start. */
export type StreamEvent =
  | { type: 'text'; text: string }
  | {
      type: 'reasoning';
      text?: string;
      signature?: string;
      encrypted?: string;
      format: ReasoningFormat;
      /** The part the reasoning belongs to, when the provider ties it to one (Gemini's signature of a tool call: its id). */
      id?: string;
    }
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_delta'; index: number; arguments: string }
  | { type: 'stop'; reason: StopReason; native: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'error'; code: number; message: string };

/** An upstream's stream turned into canonical events, fed its bytes as they arrive. */
export interface EventTranslator {
  push(chunk: Buffer): StreamEvent[];
  /** The upstream body ended; whatever was still buffered. */
  end(): StreamEvent[];
  /** Whether the upstream ended the stream properly (`[DONE]`, `message_stop`). */
  readonly done: boolean;
  /** The upstream's id of the answer, once seen. */
  readonly upstreamId: string | null;
}
