/**
 * The contract of a chat wire format (one folder per format, beside its embeddings adapter): map
 * the validated request to the upstream's, and its answer, whole or streamed, back to OpenAI's
 * chat completion shape. HTTP, timeouts and error classification stay in `src/transport/`.
 * @module
 */
import type { Endpoint } from '../catalog/types';
import type { ChatBody, ChatToolCall } from '../chat/types';
import type { MessagesBody } from '../messages/types';
import type { ResponsesBody } from '../responses/types';
import type { DoorView } from '../inference/door';
import type { Answer, EventTranslator, Exchange, StopReason, Usage, WireFormat } from '../inference/exchange';
import type { UpstreamErrorDetail, UpstreamHeaders, UpstreamRequest } from '../transport/outcome';

/** OpenAI's finish reasons plus the hosted service's `error` (the canonical stop reasons). */
export type FinishReason = StopReason;

/** A door's own body, for the adapter that speaks its format (sent as it is, but for the gateway's fields). */
export type NativeBody =
  | { format: 'openai-chat'; body: ChatBody }
  | { format: 'anthropic-messages'; body: MessagesBody }
  | { format: 'openai-responses'; body: ResponsesBody };

/** What an adapter needs to build one upstream request. */
export interface ChatJob {
  /**
   * The door's body when it has one: an adapter of the same format sends it (never the hosted
   * service's `provider`, `models`, `session_id`, `usage`, `transforms`, `trace`).
   */
  native?: NativeBody;
  /** The request in canonical form, built on first call (an adapter of another format needs it). */
  exchange(): Exchange;
  stream: boolean;
  /** The completion bound to send (`max_tokens` / `max_completion_tokens`), when the client set one. */
  maxTokens: number | undefined;
  /** The client asked for reasoning to be billed but left out of the answer (`reasoning.exclude`). */
  hideReasoning?: boolean;
  /**
   * The client's headers for an upstream of the native body's format (the Messages door's
   * `anthropic-version`, `anthropic-beta`); an adapter of another format never sends them.
   */
  headers?: Readonly<Record<string, string>>;
}

/**
 * Token usage as the upstream reported it (the canonical usage). A parsed answer's counts may be
 * anything the upstream sent (negative, fractional, huge, NaN for a non-number);
 * `boundChatUsage` (src/usage/bounds.ts) decides what is billed.
 */
export type ChatUsage = Usage;

/** One reasoning block of an answer, as the hosted service writes it (`reasoning_details[]`). */
export interface ReasoningDetailOut {
  type: 'reasoning.text' | 'reasoning.summary' | 'reasoning.encrypted';
  format: string;
  index: number;
  id?: string;
  text?: string;
  summary?: string;
  signature?: string;
  data?: string;
}

/** A choice's message: OpenAI's, with the reasoning, annotations, audio and tool-call extras an upstream wrote kept. */
export interface ChatAnswerMessage {
  role: 'assistant';
  content: string | null;
  refusal?: string | null;
  tool_calls?: Array<ChatToolCall & { extra_content?: unknown }>;
  reasoning?: string | null;
  reasoning_details?: ReasoningDetailOut[];
  annotations?: unknown;
  audio?: unknown;
}

/** One choice of a whole (non-streamed) answer, in OpenAI's shape. */
export interface ChatChoice {
  index: number;
  message: ChatAnswerMessage;
  finish_reason: FinishReason | null;
  native_finish_reason: string | null;
  logprobs: unknown;
}

/** A mapped 2xx answer. */
export interface ParsedChat {
  choices: ChatChoice[];
  /** The upstream's `created` (unix seconds), when sent. */
  created: number | null;
  systemFingerprint: string | null;
  usage: ChatUsage | null;
  upstreamId: string | null;
  /** The first choice's finish reason, normalised, and as the upstream said it. */
  finishReason: FinishReason | null;
  nativeFinishReason: string | null;
  /** Tool calls across the choices. */
  toolCalls: number;
}

/** What a stream says once it has ended (or been cut). */
export interface StreamSummary {
  usage: ChatUsage | null;
  finishReason: FinishReason | null;
  nativeFinishReason: string | null;
  toolCalls: number;
  upstreamId: string | null;
  /** The tokens generated (content, refusal, tool names and arguments) as the gateway counts them, for when usage never came; counted only when asked. */
  generatedTokens(): number;
}

/**
 * One upstream stream being turned into OpenAI `chat.completion.chunk` events. Fed the
 * upstream's bytes as they arrive (split anywhere); returns whole SSE events (`data: {…}\n\n`)
 * for the client, in order, each with the gateway's id, model and provider ({@link StreamHead}). It
 * never returns `[DONE]` nor a usage-only chunk: the service ends every stream itself with the
 * gateway's usage chunk (with the cost) and `[DONE]`. An OpenAI-compatible stream is passed through
 * event by event, relabelled by substring replacement, its JSON parsed only where usage, a finish
 * reason or an error may be.
 */
export interface ChatStream {
  push(chunk: Buffer): string[];
  /** The upstream body ended; whatever was still buffered. */
  end(): string[];
  /** Whether an event with content (text, refusal, a tool call) has been returned: no fallback from then on. */
  readonly started: boolean;
  /** Whether the upstream ended the stream properly (`[DONE]`, `message_stop`). */
  readonly done: boolean;
  /** An error the upstream sent inside the stream (the service ends the stream with its error chunk). */
  readonly error: { code: number; message: string } | null;
  summary(): StreamSummary;
  /** An upper bound on the completion tokens generated so far (the UTF-8 bytes of the generated text), for a budget's meter. */
  generatedBound?(): number;
}

/** Who answers a stream: every chunk the client gets carries these, as the hosted service's do. */
export interface StreamHead {
  /** The generation id (`gen-…`). */
  id: string;
  /** The catalog model that answers. */
  model: string;
  /** Its provider's display name. */
  provider: string;
  /** Unix seconds. */
  created: number;
}

/** A door's view of an upstream's answers in the door's own shape: whole, and streamed. */
export interface ChatView {
  /** Map a 2xx body (raw bytes); null when it is not a valid chat answer (→ fallback, else 502). */
  parseResponse(body: Buffer): ParsedChat | null;
  /** A translator for one streamed answer whose chunks carry `head`'s id, model and provider (without reasoning when `hideReasoning`). */
  createStream(head: StreamHead, hideReasoning?: boolean): ChatStream;
}

/** One chat wire format: maps the canonical model (or a door's body of its own format) to its upstream and back. */
export interface ChatAdapter {
  readonly name: string;
  /** The wire format it speaks; a door of the same format passes its body and answers through. */
  readonly format: WireFormat;
  /**
   * Build the HTTP request for `job` on `endpoint` with `key` (the key pool's pick for this
   * attempt; null when the provider has none); a stream asks for usage in its last event.
   */
  buildRequest(job: ChatJob, endpoint: Endpoint, key: string | null): UpstreamRequest;
  /** Sign a built request where the format signs each one (SigV4), adding its headers; it never sends. */
  authorize?(req: UpstreamRequest, endpoint: Endpoint, key: string | null): Promise<void>;
  /** A 2xx body (raw bytes) in canonical form; null when it is not a valid answer (→ fallback, else 502). */
  parseAnswer(body: Buffer): Answer | null;
  /** A translator of one streamed answer into canonical events. */
  createEvents(): EventTranslator;
  /** The door of this format's view, passed through without the canonical round trip. */
  readonly passThrough?: ChatView;
  /** The Messages door's view of an Anthropic-format upstream's answers, passed through (relabelled). */
  readonly messagesPassThrough?: MessagesPassThrough;
  /** The Responses door's pass-through, on the endpoints whose provider serves OpenAI's `/responses`. */
  readonly responsesPassThrough?: ResponsesPassThrough;
  /** As the embeddings adapters': whether an error body signals overload (→ 529). */
  isOverloaded?(status: number, bodyText: string, headers?: UpstreamHeaders): boolean;
  /** Whether an error says the model cannot serve yet (→ another provider, else 503; see `UpstreamFailure.unavailable`). */
  isUnavailable?(status: number, bodyText: string, headers?: UpstreamHeaders): boolean;
  /** What the format reads of a request's media, where it cannot read everything: the plan leaves its endpoints out for the rest. */
  readonly media?: FormatMedia;
  /**
   * How the format takes a JSON response format: `any` (the default), `schema` (only `json_schema`,
   * on endpoints listing `structured_outputs`) or `none`; the plan leaves its endpoints out otherwise.
   */
  readonly jsonOutput?: 'any' | 'schema' | 'none';
  /** Whether `endpoint` reasons by Claude's thinking budget (at least 1024 tokens below `max_tokens`). */
  thinksByBudget?(endpoint: Endpoint): boolean;
  /** A refusal the client should see, read from an error body (see `OverloadSignal.errorDetail`). */
  errorDetail?(status: number, bodyText: string): UpstreamErrorDetail | null;
}

/** The media a wire format can send on: remote image URLs (the provider fetches them), and which document types. */
export interface FormatMedia {
  imageUrls: boolean;
  readsDocument(mediaType: string): boolean;
}

/** A Messages answer as it came: the canonical reading (billing, the record) and the upstream's JSON. */
export interface NativeMessage {
  answer: Answer;
  /** The upstream's message object, to be sent with only the gateway's fields changed. */
  message: Record<string, unknown>;
}

/**
 * An Anthropic stream passed through to the Messages door: its events relabelled (`message_start`'s
 * id and model), the final `message_delta` and `message_stop` held back for the door's closing
 * events (with the billed usage); `stopReason` / `stopSequence` are what the held-back delta said.
 */
export interface MessagesPassThroughStream extends ChatStream {
  readonly stopReason: string | null;
  readonly stopSequence: string | null;
  /** The indexes of the content blocks started and not yet stopped (a failed stream closes them). */
  readonly openBlocks: readonly number[];
}

/** The Messages door's pass-through of an Anthropic-format upstream. */
export interface MessagesPassThrough {
  parseMessage(body: Buffer): NativeMessage | null;
  createStream(head: StreamHead): MessagesPassThroughStream;
}

/**
 * The Responses door's pass-through of OpenAI's own Responses API: a door view of its own (answers
 * relabelled, a stream's final event held back for the billed usage), on the endpoints it serves.
 */
export interface ResponsesPassThrough extends DoorView {
  /** Whether `endpoint`'s provider serves `/responses` (`responses: true` in its catalog entry). */
  serves(endpoint: Endpoint): boolean;
}
