/**
 * A Converse stream (`/converse-stream`, AWS event-stream framing) turned into canonical events.
 * Each message's `:event-type` names its member: `contentBlockStart` opens a tool call,
 * `contentBlockDelta` carries text, a piece of a tool call's input or Claude's reasoning (text,
 * signature, redacted bytes), `messageStop` the stop reason and `metadata` the usage. A message of
 * type `exception` is the upstream's failure, its status read from `:exception-type`
 * (throttling → 429, service unavailable → 529, a bad request → 400, else 502). The stream is
 * done when its body ends after `messageStop`.
 * @module
 */
import type { Message } from '@smithy/types';
import type { EventTranslator, StreamEvent } from '../../inference/exchange';
import { STATUS_MESSAGES } from '../../errors';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { EventStreamFrames } from './frames';
import { stopOf, usageOf } from './finish';
import { CLAUDE_FORMAT } from './response';

/** In-stream exceptions by `:exception-type`, as the statuses the gateway gives them. */
const EXCEPTION_STATUS: Readonly<Record<string, number>> = {
  throttlingException: 429,
  serviceUnavailableException: 529,
  validationException: 400,
  modelTimeoutException: 524,
};

function header(m: Message, name: string): string | null {
  const h = m.headers[name];
  return h && h.type === 'string' ? h.value : null;
}

function errorEvent(code: number): StreamEvent {
  return { type: 'error', code, message: STATUS_MESSAGES[code] ?? STATUS_MESSAGES[502]! };
}

/** One Converse stream (see the module comment). */
export class BedrockEvents implements EventTranslator {
  private readonly frames = new EventStreamFrames();
  readonly upstreamId: string | null = null;
  done = false;
  private failed = false;
  private stopped = false;
  /** Tool calls by content block index (their canonical index). */
  private readonly calls = new Map<number, number>();

  push(chunk: Buffer): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const m of this.frames.push(chunk)) if (!this.failed) this.message(m, out);
    if (this.frames.broken && !this.failed) {
      this.failed = true;
      out.push(errorEvent(502));
    }
    return out;
  }

  end(): StreamEvent[] {
    if (this.failed) return [];
    if (this.stopped && !this.frames.partial) this.done = true;
    return [];
  }

  private message(m: Message, out: StreamEvent[]): void {
    const kind = header(m, ':message-type');
    if (kind !== 'event') {
      this.failed = true;
      out.push(errorEvent(EXCEPTION_STATUS[header(m, ':exception-type') ?? ''] ?? 502));
      return;
    }
    const body = asObject(parseJson(Buffer.from(m.body).toString('utf8')));
    if (body) this.event(header(m, ':event-type'), body, out);
  }

  private event(type: string | null, body: Record<string, unknown>, out: StreamEvent[]): void {
    const index = typeof body.contentBlockIndex === 'number' ? body.contentBlockIndex : -1;
    if (type === 'contentBlockStart') {
      const use = asObject(asObject(body.start)?.toolUse);
      if (use && typeof use.toolUseId === 'string' && typeof use.name === 'string') {
        const call = this.calls.size;
        this.calls.set(index, call);
        out.push({ type: 'tool_call_start', index: call, id: use.toolUseId, name: use.name });
      }
    } else if (type === 'contentBlockDelta') this.delta(index, asObject(body.delta), out);
    else if (type === 'messageStop' && typeof body.stopReason === 'string') {
      this.stopped = true;
      out.push({ type: 'stop', reason: stopOf(body.stopReason), native: body.stopReason });
    } else if (type === 'metadata') {
      const usage = usageOf(body.usage);
      if (usage) out.push({ type: 'usage', usage });
    }
  }

  private delta(index: number, delta: Record<string, unknown> | null, out: StreamEvent[]): void {
    if (!delta) return;
    if (typeof delta.text === 'string') {
      if (delta.text !== '') out.push({ type: 'text', text: delta.text });
      return;
    }
    const input = asObject(delta.toolUse)?.input;
    const call = this.calls.get(index);
    if (typeof input === 'string' && call !== undefined) {
      out.push({ type: 'tool_call_delta', index: call, arguments: input });
      return;
    }
    const r = asObject(delta.reasoningContent);
    if (!r) return;
    if (typeof r.text === 'string' && r.text !== '')
      out.push({ type: 'reasoning', format: CLAUDE_FORMAT, text: r.text });
    if (typeof r.signature === 'string') out.push({ type: 'reasoning', format: CLAUDE_FORMAT, signature: r.signature });
    if (typeof r.redactedContent === 'string')
      out.push({ type: 'reasoning', format: CLAUDE_FORMAT, encrypted: r.redactedContent });
  }
}
