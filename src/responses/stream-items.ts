/**
 * The output items of one Responses stream as they are written: the response's opening events,
 * then one open item at a time (a message's text, a reasoning summary, a tool call's arguments),
 * closed with its `….done` events when the next one opens or the stream ends. Every event gets the
 * next `sequence_number`; items keep their `output_index`, id and `content_index` throughout.
 * @module
 */
import type { StreamHead } from '../providers/chat-types';
import { callItem, itemId, messageItem, outputText, reasoningItem, responseJson } from './response';
import type { OutputItem } from './response';
import type { Echo } from './echo';
import { customInputOf, type ToolOrigin, type ToolSet } from './tools';

type Open =
  | { kind: 'message'; index: number; id: string; text: string }
  | { kind: 'reasoning'; index: number; id: string; text: string | null; encrypted: string | null }
  | { kind: 'call'; index: number; id: string; callId: string; origin: ToolOrigin; args: string };

/** The items of one stream (see the module comment). */
export class OpenItems {
  private sequence = 0;
  private opened = false;
  private current: Open | null = null;
  /** Calls by the stream's tool-call index. */
  private readonly calls = new Map<number, Extract<Open, { kind: 'call' }>>();
  /** The closed items, by output index. */
  readonly output: OutputItem[] = [];
  /** What the model generated (texts, reasoning, tool names and arguments), for the gateway's count. */
  readonly texts: string[] = [];
  toolCalls = 0;

  constructor(
    private readonly head: StreamHead,
    private readonly tools: ToolSet,
    private readonly echo: Echo,
  ) {}

  /** One SSE event of `type`. */
  event(type: string, data: Record<string, unknown>): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.sequence++, ...data })}\n\n`;
  }

  /** One SSE event of `type` carrying `response` (JSON text, {@link responseJson}). */
  responseEvent(type: string, response: string): string {
    const head = JSON.stringify({ type, sequence_number: this.sequence++ });
    return `event: ${type}\ndata: ${head.slice(0, -1)},"response":${response}}\n\n`;
  }

  text(delta: string, out: string[]): void {
    this.texts.push(delta);
    let open = this.current;
    if (open?.kind !== 'message') {
      const index = this.next(out);
      open = { kind: 'message', index, id: itemId('msg', this.head, index), text: '' };
      this.current = open;
      out.push(this.added(open.index, messageItem(open.id, null, 'in_progress')));
      out.push(this.event('response.content_part.added', { ...this.at(open), content_index: 0, part: outputText('') }));
    }
    open.text += delta;
    out.push(this.event('response.output_text.delta', { ...this.at(open), content_index: 0, delta, logprobs: [] }));
  }

  reasoning(text: string | null, encrypted: string | null, out: string[]): void {
    let open = this.current;
    if (open?.kind !== 'reasoning' || (text !== null && open.encrypted !== null)) {
      const index = this.next(out);
      open = { kind: 'reasoning', index, id: itemId('rs', this.head, index), text: null, encrypted: null };
      this.current = open;
      out.push(this.added(open.index, reasoningItem(open.id, null, null)));
    }
    if (encrypted !== null) open.encrypted = (open.encrypted ?? '') + encrypted;
    if (text === null || text === '') return;
    this.texts.push(text);
    const at = { ...this.at(open), summary_index: 0 };
    if (open.text === null) {
      open.text = '';
      out.push(
        this.event('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } }),
      );
    }
    open.text += text;
    out.push(this.event('response.reasoning_summary_text.delta', { ...at, delta: text }));
  }

  callStart(streamIndex: number, callId: string, name: string, out: string[]): void {
    const index = this.next(out);
    const origin = this.tools.origin(name);
    const id = itemId(origin.kind === 'custom' ? 'ctc' : 'fc', this.head, index);
    const open = { kind: 'call' as const, index, id, callId, origin, args: '' };
    this.current = open;
    this.calls.set(streamIndex, open);
    this.toolCalls++;
    this.texts.push(name);
    out.push(this.added(index, callItem(id, callId, origin, '', 'in_progress')));
  }

  callDelta(streamIndex: number, delta: string, out: string[]): void {
    const open = this.calls.get(streamIndex);
    if (!open) return;
    this.texts.push(delta);
    open.args += delta;
    // A custom tool's input is inside JSON until the call ends: it is written whole when it closes.
    if (open === this.current && open.origin.kind === 'function')
      out.push(this.event('response.function_call_arguments.delta', { ...this.at(open), delta }));
  }

  /** The opening events once, then the open item closed; the next item's output index. */
  private next(out: string[]): number {
    out.push(...this.closeAll());
    return this.output.length;
  }

  /** The response's opening events (once), and the open item's closing ones. */
  closeAll(): string[] {
    const out: string[] = [];
    if (!this.opened) {
      this.opened = true;
      const response = responseJson(this.head, this.echo, {});
      out.push(this.responseEvent('response.created', response), this.responseEvent('response.in_progress', response));
    }
    const open = this.current;
    if (!open) return out;
    this.current = null;
    const at = this.at(open);
    let item: OutputItem;
    if (open.kind === 'message') {
      item = messageItem(open.id, open.text, 'completed');
      out.push(this.event('response.output_text.done', { ...at, content_index: 0, text: open.text, logprobs: [] }));
      out.push(this.event('response.content_part.done', { ...at, content_index: 0, part: outputText(open.text) }));
    } else if (open.kind === 'reasoning') {
      item = reasoningItem(open.id, open.text, open.encrypted);
      if (open.text !== null) {
        const sum = { ...at, summary_index: 0 };
        out.push(this.event('response.reasoning_summary_text.done', { ...sum, text: open.text }));
        const part = { type: 'summary_text', text: open.text };
        out.push(this.event('response.reasoning_summary_part.done', { ...sum, part }));
      }
    } else {
      item = callItem(open.id, open.callId, open.origin, open.args, 'completed');
      if (open.origin.kind === 'custom') {
        const input = customInputOf(open.args);
        out.push(this.event('response.custom_tool_call_input.delta', { ...at, delta: input }));
        out.push(this.event('response.custom_tool_call_input.done', { ...at, input }));
      } else
        out.push(
          this.event('response.function_call_arguments.done', { ...at, name: open.origin.name, arguments: open.args }),
        );
    }
    this.output[open.index] = item;
    out.push(this.event('response.output_item.done', { output_index: open.index, item }));
    return out;
  }

  private added(index: number, item: OutputItem): string {
    return this.event('response.output_item.added', { output_index: index, item });
  }

  private at(open: Open): { item_id: string; output_index: number } {
    return { item_id: open.id, output_index: open.index };
  }
}
