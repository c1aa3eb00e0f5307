/**
 * A streamed answer through the Responses door: canonical events → Responses SSE events
 * (`event: <type>` and `data: {…}` with an increasing `sequence_number`), each output item opened
 * (`output_item.added`), filled (text, reasoning summary, call argument deltas) and closed
 * (`….done`, `output_item.done`) in order, so the client's accumulator rebuilds the same response
 * that `response.completed` (or `response.incomplete`) then carries, with the billed usage and its
 * cost; a stream that breaks ends with `response.failed`.
 * @module
 */
import type { DoorStream } from '../inference/door';
import type { EventTranslator, StreamEvent, Usage } from '../inference/exchange';
import { summaryOf } from '../providers/chat-stream-parts';
import { countTokens } from '../usage/tokens';
import type { FinishReason, StreamHead, StreamSummary } from '../providers/chat-types';
import { BUDGET_INCOMPLETE, responseJson, statusOf, usageOf } from './response';
import { OpenItems } from './stream-items';
import type { Echo } from './echo';
import type { ToolSet } from './tools';

/** An error's `code` as OpenAI writes it (a string, which Codex and the SDKs read). */
export function errorCode(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 400 && status < 500) return 'invalid_request_error';
  return 'server_error';
}

/** One translated stream (see the module comment). */
export class ResponsesStream implements DoorStream {
  private readonly items: OpenItems;
  private usage: Usage | null = null;
  private finishReason: FinishReason | null = null;
  private nativeFinishReason: string | null = null;
  /** UTF-8 bytes of what the model generated: a bound on its tokens, for a budget's meter. */
  private generated = 0;
  started = false;
  error: { code: number; message: string } | null = null;

  constructor(
    private readonly events: EventTranslator | null,
    private readonly head: StreamHead,
    tools: ToolSet,
    private readonly echo: Echo,
  ) {
    this.items = new OpenItems(head, tools, echo);
  }

  get done(): boolean {
    return this.events?.done ?? true;
  }

  push(chunk: Buffer): string[] {
    return this.handle(this.events?.push(chunk) ?? []);
  }

  end(): string[] {
    return this.handle(this.events?.end() ?? []);
  }

  summary(): StreamSummary {
    const parts = {
      usage: this.usage,
      finishReason: this.finishReason,
      nativeFinishReason: this.nativeFinishReason,
      toolCalls: this.items.toolCalls,
      upstreamId: this.events?.upstreamId ?? null,
    };
    return summaryOf(parts, () => countTokens([this.items.texts.join('')]));
  }

  generatedBound(): number {
    return this.generated;
  }

  finish(head: StreamHead, usage: Usage, cost: number): string {
    return this.close(head, usage, cost, statusOf(this.finishReason));
  }

  cut(head: StreamHead, usage: Usage, cost: number): string {
    return this.close(head, usage, cost, BUDGET_INCOMPLETE);
  }

  private close(
    head: StreamHead,
    usage: Usage,
    cost: number,
    { status, incomplete_details }: { status: string; incomplete_details: unknown },
  ): string {
    const out = this.items.closeAll();
    const response = responseJson(head, this.echo, {
      status,
      incomplete_details,
      output: this.items.output,
      usage: usageOf(usage, cost),
    });
    out.push(this.items.responseEvent(status === 'completed' ? 'response.completed' : 'response.incomplete', response));
    return out.join('');
  }

  fail(head: StreamHead, code: number, message: string): string {
    const out = this.items.closeAll();
    const response = responseJson(head, this.echo, {
      status: 'failed',
      output: this.items.output,
      error: { code: errorCode(code), message },
    });
    out.push(this.items.responseEvent('response.failed', response));
    return out.join('');
  }

  private handle(events: StreamEvent[]): string[] {
    const out: string[] = [];
    for (const e of events) {
      if (this.error) break;
      this.translate(e, out);
    }
    return out;
  }

  private translate(e: StreamEvent, out: string[]): void {
    const text =
      e.type === 'tool_call_start' ? e.name : e.type === 'tool_call_delta' ? e.arguments : 'text' in e ? e.text : null;
    if (typeof text === 'string') this.generated += Buffer.byteLength(text);
    switch (e.type) {
      case 'text':
        this.started = true;
        return this.items.text(e.text, out);
      case 'reasoning':
        if (e.text) this.started = true;
        return this.items.reasoning(e.text ?? null, e.encrypted ?? null, out);
      case 'tool_call_start':
        this.started = true;
        return this.items.callStart(e.index, e.id, e.name, out);
      case 'tool_call_delta':
        return this.items.callDelta(e.index, e.arguments, out);
      case 'stop':
        this.finishReason = e.reason;
        this.nativeFinishReason = e.native;
        return;
      case 'usage':
        this.usage = e.usage;
        return;
      case 'error':
        this.error = { code: e.code, message: e.message };
        return;
    }
  }
}
