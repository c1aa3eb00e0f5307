/**
 * Pieces both chat stream translators share: SSE framing of the events they return, the error an
 * upstream sends inside a stream, and the summary's lazily counted generated tokens.
 * @module
 */
import type { ChatUsage, FinishReason, StreamSummary } from './chat-types';
import { asObject } from './parse';
import { STATUS_MESSAGES } from '../errors';
import { SseSplitter, type SseEvent } from './sse';

/** `data` as one SSE event (`data: …\n\n`; a multi-line payload keeps one `data:` field per line). */
export function frame(data: string): string {
  return data.includes('\n')
    ? `${data
        .split('\n')
        .map((line) => `data: ${line}`)
        .join('\n')}\n\n`
    : `data: ${data}\n\n`;
}

/** The status an in-stream error maps to: the upstream's own when it is an HTTP error status, else by its kind. */
export function streamErrorStatus(error: Record<string, unknown>): number {
  for (const v of [error.code, error.status])
    if (typeof v === 'number' && Number.isInteger(v) && v >= 400 && v <= 599) return v;
  const kind = [error.type, error.code].map((v) => (typeof v === 'string' ? v : '')).join(' ');
  if (kind.includes('overloaded')) return 529;
  if (kind.includes('rate_limit')) return 429;
  return 502;
}

/**
 * `{error: {message, …}}` (OpenAI) or `{type: "error", error: {…}}` (Anthropic) → the stream's
 * error; null when `payload` is no error. The upstream's own text never reaches the client (it
 * may carry anything, an upstream key included): the message is the gateway's for the status, as
 * for an error before any content.
 */
export function streamError(payload: unknown): { code: number; message: string } | null {
  const error = asObject(asObject(payload)?.error);
  if (!error) return null;
  const code = streamErrorStatus(error);
  return { code, message: STATUS_MESSAGES[code] ?? STATUS_MESSAGES[502]! };
}

/** What a translator knows when its stream ends. */
export interface SummaryParts {
  usage: ChatUsage | null;
  finishReason: FinishReason | null;
  nativeFinishReason: string | null;
  toolCalls: number;
  upstreamId: string | null;
}

/** A {@link StreamSummary} whose generated tokens are counted by `tokens` only when asked (only a stream without usage needs it). */
export function summaryOf(parts: SummaryParts, tokens: () => number): StreamSummary {
  let counted: number | undefined;
  return { ...parts, generatedTokens: () => (counted ??= tokens()) };
}

/**
 * A stream translator over SSE events: the body split into events, each batch handed to
 * `handle`; a body that ends inside an event too large to buffer is a broken stream.
 */
export abstract class SseTranslator {
  private readonly sse = new SseSplitter();
  abstract done: boolean;
  abstract error: { code: number; message: string } | null;

  push(chunk: Buffer): string[] {
    return this.handle(this.sse.push(chunk));
  }

  end(): string[] {
    const out = this.handle(this.sse.end());
    const overflow = this.error ? null : this.sse.overflowError(this.done);
    if (overflow) this.error = overflow;
    return out;
  }

  /** The events to write for `events`. */
  protected abstract handle(events: SseEvent[]): string[];
}
