/**
 * A Gemini `streamGenerateContent?alt=sse` stream turned into canonical events: every event is a
 * whole GenerateContentResponse (`data: {…}`, no `[DONE]`) holding the next parts of the first
 * candidate; its `usageMetadata` is the running total, and the event with a `finishReason` (or a
 * prompt block) ends the answer, so a body that ends cleanly after it is a finished stream. An
 * `{error}` event is the upstream's failure; a function call arrives whole in one part.
 * @module
 */
import type { EventTranslator, StreamEvent } from '../../inference/exchange';
import { streamError } from '../chat-stream-parts';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { SseSplitter, type SseEvent } from '../sse';
import { partsOf } from './chat-response';
import { blockReasonOf, finishOf, usageOf } from './finish';

/** One Gemini stream (see the module comment). */
export class GeminiEvents implements EventTranslator {
  private readonly sse = new SseSplitter();
  upstreamId: string | null = null;
  done = false;
  private failed = false;
  /** A finish reason (or a prompt block) was seen. */
  private finished = false;
  /** Tool calls started so far (the next one's index). */
  private calls = 0;

  push(chunk: Buffer): StreamEvent[] {
    return this.handle(this.sse.push(chunk));
  }

  end(): StreamEvent[] {
    const out = this.handle(this.sse.end());
    const overflow = this.failed ? null : this.sse.overflowError(this.done);
    if (overflow) out.push({ type: 'error', ...overflow });
    else if (this.finished && !this.failed) this.done = true;
    return out;
  }

  private handle(events: SseEvent[]): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const e of events) {
      if (this.failed || this.finished) break;
      const data = asObject(parseJson(e.data));
      if (!data) continue;
      if (data.error !== undefined) {
        this.failed = true;
        out.push({ type: 'error', ...(streamError(data) ?? { code: 502, message: 'Provider returned error' }) });
        break;
      }
      this.translate(data, out);
    }
    return out;
  }

  private translate(data: Record<string, unknown>, out: StreamEvent[]): void {
    if (this.upstreamId === null && typeof data.responseId === 'string') this.upstreamId = data.responseId;
    const usage = usageOf(data.usageMetadata);
    const candidate = asObject(Array.isArray(data.candidates) ? data.candidates[0] : undefined);
    const content = asObject(candidate?.content);
    for (const raw of Array.isArray(content?.parts) ? content.parts : []) this.part(raw, out);
    if (usage) out.push({ type: 'usage', usage });
    const blocked = candidate ? null : blockReasonOf(data);
    const reason = typeof candidate?.finishReason === 'string' ? candidate.finishReason : blocked;
    if (reason === null) return;
    this.finished = true;
    const stop = blocked ? 'content_filter' : finishOf(reason, this.calls > 0);
    out.push({ type: 'stop', reason: stop, native: reason });
  }

  /** One part's events: a thought or signature as reasoning, text, or a whole tool call. */
  private part(raw: unknown, out: StreamEvent[]): void {
    for (const p of partsOf(raw)) {
      if (p.type === 'text') out.push({ type: 'text', text: p.text });
      else if (p.type === 'reasoning') {
        const e: StreamEvent = { type: 'reasoning', format: p.format };
        if (p.text) e.text = p.text;
        if (p.signature !== undefined) e.signature = p.signature;
        if (p.encrypted !== undefined) e.encrypted = p.encrypted;
        if (p.id !== undefined) e.id = p.id;
        if (e.text || e.signature || e.encrypted) out.push(e);
      } else if (p.type === 'tool_call') {
        const index = this.calls++;
        out.push({ type: 'tool_call_start', index, id: p.id, name: p.name });
        out.push({ type: 'tool_call_delta', index, arguments: p.arguments });
      }
    }
  }
}
