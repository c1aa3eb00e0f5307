/**
 * A front door on the inference core: what a chat-like API (chat completions, Anthropic Messages,
 * OpenAI Responses) adds to the one pipeline. The door reads its body into a plan input and an
 * adapter job, and writes answers in its own shape; the service runs everything between (the
 * fallback runner, billing, records, metrics) once for every door.
 * @module
 */
import type { ChatAdapter, ChatJob, FinishReason, StreamHead, ChatStream } from '../providers/chat-types';
import type { Endpoint } from '../catalog/types';
import type { ProviderPreferences } from '../routing/preferences';
import type { ChatPrompt } from '../chat/prompt';
import type { Usage } from './exchange';

/** The usage record's `api_type` of each door. */
export type DoorApi = 'chat' | 'messages' | 'responses';

/** What the plan needs from a door's body. */
export interface PlanInput {
  /** The models to try in order (the first names the request in errors and samples). */
  modelIds: string[];
  /** The hosted service's `provider` object, if sent. */
  provider: ProviderPreferences | null | undefined;
  prompt: ChatPrompt;
  /** The client's completion bound, if set. */
  maxTokens: number | undefined;
  /** The choices asked for (`n`; 1 when unset): each may take the whole completion bound. */
  choices?: number;
  stream: boolean;
  /** Completion tokens the budget holds at a time (budgets/slices.ts); 0 or unset: the whole worst case. */
  sliceTokens?: number;
}

/** A whole answer as the door read it: what billing and the record need, and the body it sends. */
export interface DoorAnswer {
  usage: Usage | null;
  finishReason: FinishReason | null;
  nativeFinishReason: string | null;
  toolCalls: number;
  upstreamId: string | null;
  /** The generated text, for the gateway's count when the upstream reported no usage. */
  text(): string;
  /** The door's body for the client, with the gateway's id, model and billed usage. */
  render(head: StreamHead, usage: Usage, cost: number): string;
}

/** One upstream stream in the door's events; the service ends it with `finish` or `fail`. */
export interface DoorStream extends ChatStream {
  /** The events that close a stream that ran to its end (the billed usage and its cost, the terminator). */
  finish(head: StreamHead, usage: Usage, cost: number): string;
  /** The events that close a stream that broke after it started (its 200 is already sent). */
  fail(head: StreamHead, code: number, message: string): string;
  /** The events that close a stream the budget ended (budgets/slices.ts): the door's length stop saying so, the billed usage, the terminator. */
  cut?(head: StreamHead, usage: Usage, cost: number): string;
}

/** A door's view of one adapter's answers. */
export interface DoorView {
  /** A 2xx body (raw bytes) read for `job`; null when it is no valid answer (→ fallback, else 502). */
  parse(body: Buffer, job?: ChatJob): DoorAnswer | null;
  /** A translator of one streamed answer of `job` whose events carry `head`. */
  stream(head: StreamHead, job?: ChatJob): DoorStream;
}

/** One front door (see the module comment). `B` is its validated body. */
export interface Door<B> {
  readonly api: DoorApi;
  /** The route label of the gateway-overhead metric. */
  readonly route: string;
  planInput(body: B): PlanInput;
  /** The adapters' job: the door's body for an adapter of its format, the canonical form for any other. */
  job(body: B, maxTokens: number | undefined, stream: boolean): ChatJob;
  /** The events that close a stream whose 200 went out (kept alive) but whose every attempt failed before content. */
  failed(head: StreamHead, code: number, message: string): string;
  /** Its view of `adapter`'s answers on `endpoint` (made once per adapter, or per way of answering). */
  view(adapter: ChatAdapter, endpoint: Endpoint): DoorView;
  /**
   * The whole body from the door's own stream events (ending with its closing events), for a
   * whole answer read as a stream so that the budget could meter it. A
   * door without it (and its streams' `cut`) is not sliced: it holds the whole worst case.
   */
  assemble?(events: string, head: StreamHead): string;
  /**
   * Whether answers to `body` may be metered in slices (default: whenever the door assembles): a
   * whole one is then assembled from a stream, which must lose nothing the client asked for.
   */
  meters?(body: B): boolean;
  /** The record's end user and session, as the body names them. */
  endUser(body: B): string | null;
  sessionId(body: B): string | undefined;
}
