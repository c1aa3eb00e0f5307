/**
 * What a passed-through Responses stream generated, kept as the events' data (bounded by the
 * gateway's cap on one stream) and read only when needed: the gateway's count of an answer without
 * usage, and the output of a stream the gateway ends itself (the budget's cut, an error), rebuilt
 * from the items' `added` events and their deltas the way the client's accumulator does. A meter's
 * bound is read off each delta's raw `delta` string, with no parse.
 * @module
 */
import { GeneratedText } from '../generated-text';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { countTokens } from '../../usage/tokens';

type Item = Record<string, unknown>;

/** The delta events whose `delta` is generated text, and where it goes in its item. */
export const DELTA_TARGETS: Readonly<Record<string, { list: 'content' | 'summary' | null; key: string }>> = {
  'response.output_text.delta': { list: 'content', key: 'text' },
  'response.refusal.delta': { list: 'content', key: 'refusal' },
  'response.reasoning_text.delta': { list: 'content', key: 'text' },
  'response.reasoning_summary_text.delta': { list: 'summary', key: 'text' },
  'response.function_call_arguments.delta': { list: null, key: 'arguments' },
  'response.custom_tool_call_input.delta': { list: null, key: 'input' },
};

/**
 * UTF-8 bytes of the first string member `key` in an event's raw data, as written (escapes count
 * in full, so it bounds the text); `missing` when there is none.
 */
function stringBytes(data: string, key: string, missing: number): number {
  const start = data.indexOf(key);
  if (start === -1) return missing;
  let end = start + key.length;
  for (;;) {
    end = data.indexOf('"', end);
    if (end === -1) return missing;
    let slashes = 0;
    while (data.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) break;
    end++;
  }
  return Buffer.byteLength(data.slice(start + key.length, end));
}

/** One stream's output as it was generated (see the module comment). */
export class StreamedOutput {
  /** `output_item.added` and delta events' data, in order. */
  private readonly events: string[] = [];
  private readonly done = new Map<number, unknown>();
  private readonly names: string[] = [];
  private generated = 0;

  /** An `output_item.added` event: a call's name is generated too. */
  added(data: string): void {
    this.events.push(data);
    this.generated += stringBytes(data, '"name":"', 0);
  }

  /** A delta event (its whole data counted when it has no `delta` string where expected). */
  delta(data: string): void {
    this.events.push(data);
    this.generated += stringBytes(data, '"delta":"', Buffer.byteLength(data));
  }

  /** An `output_item.done` event's item, at its index; `name` when it is a tool call. */
  itemDone(index: unknown, item: unknown, name: string | null): void {
    if (typeof index === 'number') this.done.set(index, item);
    if (name !== null) this.names.push(name);
  }

  /** A bound on the tokens generated so far (UTF-8 bytes), for a budget's meter. */
  get bound(): number {
    return this.generated;
  }

  /** The gateway's count of what was generated. */
  tokens(): number {
    const texts = new GeneratedText();
    for (const data of this.events) {
      const delta = asObject(parseJson(data))?.delta;
      if (typeof delta === 'string') texts.add(delta);
    }
    for (const name of this.names) texts.add(name);
    return texts.tokens(countTokens);
  }

  /** The output items so far: those done as OpenAI sent them, the rest as their deltas built them (`incomplete`). */
  items(): unknown[] {
    const built: Item[] = [];
    for (const data of this.events) {
      const e = asObject(parseJson(data));
      const index = e?.output_index;
      if (!e || typeof index !== 'number' || index < 0 || index > 1024) continue;
      if (e.type === 'response.output_item.added') {
        built[index] = { ...asObject(e.item), status: 'incomplete' };
        continue;
      }
      const target = DELTA_TARGETS[String(e.type)];
      const item = built[index];
      if (target && item && typeof e.delta === 'string') append(item, target, e, e.delta);
    }
    const out: unknown[] = [];
    const last = Math.max(built.length, ...[...this.done.keys()].map((i) => i + 1));
    for (let i = 0; i < last; i++) {
      const item = this.done.get(i) ?? built[i];
      if (item !== undefined) out.push(item);
    }
    return out;
  }
}

/** Add `delta` where `target` says, in the part the event names (made when missing). */
function append(item: Item, target: { list: 'content' | 'summary' | null; key: string }, e: Item, delta: string): void {
  if (target.list === null) {
    item[target.key] = (typeof item[target.key] === 'string' ? (item[target.key] as string) : '') + delta;
    return;
  }
  const at = target.list === 'summary' ? e.summary_index : e.content_index;
  const i = typeof at === 'number' && at >= 0 && at < 1024 ? at : 0;
  const list = Array.isArray(item[target.list]) ? [...(item[target.list] as Item[])] : [];
  const type = target.list === 'summary' ? 'summary_text' : target.key === 'refusal' ? 'refusal' : 'output_text';
  const part: Item = { type, ...asObject(list[i]) };
  part[target.key] = (typeof part[target.key] === 'string' ? (part[target.key] as string) : '') + delta;
  list[i] = part;
  item[target.list] = list;
}
