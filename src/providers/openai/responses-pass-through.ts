/**
 * The Responses door's pass-through of OpenAI's own Responses API: a whole response as it came
 * (read only as far as billing needs), and a stream event by event. Only the response objects are
 * rewritten (the gateway's id, model and provider; the final one's billed usage), and only their
 * small members are read: the request's tools and instructions they repeat pass unread. The final
 * `response.completed` / `response.incomplete` is held back so that the door closes the stream
 * with the billed usage, and a `response.failed` or `error` is left to the door. Everything else
 * (output items, deltas, reasoning, hosted-tool events, event types added later) goes out as it
 * came, so the client sees OpenAI's own items, ids and sequence numbers.
 * @module
 */
import type { Endpoint } from '../../catalog/types';
import type { ResponsesPassThrough, StreamHead, StreamSummary } from '../chat-types';
import type { DoorAnswer, DoorStream } from '../../inference/door';
import type { Usage } from '../../inference/exchange';
import { errorCode } from '../../responses/stream';
import { BUDGET_INCOMPLETE, responseId, usageOf } from '../../responses/response';
import { STATUS_MESSAGES } from '../../errors';
import { frame as sseData, SseTranslator, streamError, summaryOf } from '../chat-stream-parts';
import { asObject } from '../parse';
import type { SseEvent } from '../sse';
import { parseJson } from '../raw-json';
import { RawObject } from '../raw-object';
import { DELTA_TARGETS, StreamedOutput } from './responses-output';
import { isToolCall, outputTexts, responsesFinishOf, responsesUsageOf } from './responses-wire';

/** One SSE event (a payload of several lines keeps one `data:` field per line). */
const frame = (type: string, data: string) => `event: ${type}\n${sseData(data)}`;

/**
 * `response` as the client gets it: the gateway's id, model and provider, `changes`, and the
 * members the hosted service's response always has (the OpenRouter SDK requires them) where the
 * upstream left them out; every other member is copied as it came, unread.
 */
function relabelled(response: RawObject | null, head: StreamHead, changes: Record<string, unknown> = {}): string {
  const status = changes.status ?? response?.get('status');
  const completed = status === 'completed' || status === 'incomplete';
  const missing: Record<string, unknown> = {};
  const defaults = { object: 'response', created_at: head.created, completed_at: completed ? head.created : null };
  for (const [name, value] of Object.entries({ ...defaults, ...RESPONSE_DEFAULTS }))
    if (!response?.has(name)) missing[name] = value;
  const ours = { id: responseId(head), model: head.model, provider: head.provider };
  return (response ?? EMPTY).with({ ...ours, ...missing, ...changes });
}

const EMPTY = new RawObject(Buffer.from('{}'));

/** The members of a response object, as the hosted service writes them when unset. */
const RESPONSE_DEFAULTS: Readonly<Record<string, unknown>> = {
  status: 'in_progress',
  background: false,
  error: null,
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  metadata: {},
  output: [],
  parallel_tool_calls: true,
  previous_response_id: null,
  reasoning: null,
  store: false,
  temperature: null,
  top_p: null,
  frequency_penalty: null,
  presence_penalty: null,
  tool_choice: 'auto',
  tools: [],
  usage: null,
};

/** One event carrying `response` (JSON text). */
function responseEvent(type: string, sequence: unknown, response: string): string {
  return frame(type, `${JSON.stringify({ type, sequence_number: sequence }).slice(0, -1)},"response":${response}}`);
}

/** The delta events whose `delta` is generated text. */
const DELTAS: ReadonlySet<string> = new Set(Object.keys(DELTA_TARGETS));

/** The events that end a response well, held back for {@link PassThroughStream.finish}. */
const FINAL: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete']);

/** The events that carry the response object while it runs. */
const OPENING: ReadonlySet<string> = new Set(['response.created', 'response.in_progress', 'response.queued']);

/** One passed-through stream (see the module comment). */
class PassThroughStream extends SseTranslator implements DoorStream {
  private readonly generated = new StreamedOutput();
  /** The latest response object (for a `response.failed` the door writes), and the final event. */
  private response: RawObject | null = null;
  private final: { type: string; sequence: unknown; response: RawObject } | null = null;
  /** Events written so far: the next one's `sequence_number`, as OpenAI numbers them from 0. */
  private written = 0;
  private toolCalls = 0;
  started = false;
  done = false;
  error: { code: number; message: string } | null = null;

  constructor(private readonly head: StreamHead) {
    super();
  }

  summary(): StreamSummary {
    const response = this.final?.response ?? null;
    const { finishReason, native } = responsesFinishOf(response, this.toolCalls);
    const id = response?.get('id');
    const parts = {
      usage: responsesUsageOf(response?.get('usage')),
      finishReason,
      nativeFinishReason: native,
      toolCalls: this.toolCalls,
      upstreamId: typeof id === 'string' ? id : null,
    };
    const generated = this.generated;
    return summaryOf(parts, () => generated.tokens());
  }

  generatedBound(): number {
    return this.generated.bound;
  }

  finish(head: StreamHead, usage: Usage, cost: number): string {
    const final = this.final!;
    const response = relabelled(final.response, head, { usage: usageOf(usage, cost) });
    return responseEvent(final.type, final.sequence, response);
  }

  fail(head: StreamHead, code: number, message: string): string {
    const output = this.generated.items();
    const changes = { status: 'failed', output, usage: null, error: { code: errorCode(code), message } };
    return responseEvent('response.failed', this.written, relabelled(this.response, head, changes));
  }

  cut(head: StreamHead, usage: Usage, cost: number): string {
    const changes = { ...BUDGET_INCOMPLETE, output: this.generated.items(), usage: usageOf(usage, cost) };
    return responseEvent('response.incomplete', this.written, relabelled(this.response, head, changes));
  }

  protected handle(events: SseEvent[]): string[] {
    const out: string[] = [];
    for (const e of events) {
      if (this.done || this.error) break;
      const written = this.translate(e);
      if (written !== null) {
        this.written++;
        out.push(written);
      }
    }
    return out;
  }

  /** The event to write for one upstream event (null: held back or consumed). */
  private translate(e: SseEvent): string | null {
    // Named by its `event:` line, an event is parsed only where the gateway reads it.
    let data: Record<string, unknown> | null | undefined;
    const read = () => (data ??= asObject(parseJson(e.data)));
    const type = e.event ?? read()?.type;
    if (typeof type !== 'string') return null;
    if (DELTAS.has(type)) this.generated.delta(e.data);
    else if (OPENING.has(type) || FINAL.has(type)) return this.responseObject(type, e.data);
    else if (type === 'response.output_item.added') this.itemAdded(e.data);
    else if (type === 'response.output_item.done') this.itemDone(read()?.output_index, read()?.item);
    else if (type === 'response.failed' || type === 'error') {
      const error = type === 'error' ? streamError({ error: read() }) : null;
      this.error = error ?? { code: 502, message: STATUS_MESSAGES[502]! };
      return null;
    }
    return frame(type, e.data);
  }

  /** An event carrying the response object: relabelled (read no further), or held back when it is the last. */
  private responseObject(type: string, data: string): string | null {
    const event = new RawObject(Buffer.from(data));
    const response = event.wellFormed ? event.object('response') : null;
    if (!response) return null;
    this.response = response;
    const sequence = event.get('sequence_number');
    if (!FINAL.has(type)) return responseEvent(type, sequence, relabelled(response, this.head));
    this.final = { type, sequence, response };
    this.done = true;
    return null;
  }

  private itemAdded(data: string): void {
    this.started = true;
    this.generated.added(data);
  }

  private itemDone(index: unknown, item: unknown): void {
    this.started = true;
    const name = isToolCall(item) ? asObject(item)?.name : null;
    if (isToolCall(item)) this.toolCalls++;
    this.generated.itemDone(index, item, typeof name === 'string' ? name : null);
  }
}

/** A whole response: its billing, and its body with the gateway's members (the rest unread). */
function parseResponse(body: Buffer): DoorAnswer | null {
  const response = new RawObject(body);
  if (!response.wellFormed) return null;
  const status = response.get('status');
  if (status !== 'completed' && status !== 'incomplete') return null;
  const read = response.get('output');
  const output: unknown[] = Array.isArray(read) ? read : [];
  const toolCalls = output.filter(isToolCall).length;
  const { finishReason, native } = responsesFinishOf(response, toolCalls);
  const id = response.get('id');
  return {
    usage: responsesUsageOf(response.get('usage')),
    finishReason,
    nativeFinishReason: native,
    toolCalls,
    upstreamId: typeof id === 'string' ? id : null,
    text: () => outputTexts(output).join('\n'),
    render: (head, usage, cost) => relabelled(response, head, { usage: usageOf(usage, cost) }),
  };
}

/** The pass-through the OpenAI adapter offers the Responses door. */
export const responsesPassThrough: ResponsesPassThrough = {
  serves: (endpoint: Endpoint) => endpoint.provider.responses,
  parse: parseResponse,
  stream: (head) => new PassThroughStream(head),
};
