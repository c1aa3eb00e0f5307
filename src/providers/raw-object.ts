/**
 * A JSON object from an upstream read member by member: only the members the gateway reads are
 * parsed, and writing it again with some members changed copies every other one as the bytes that
 * came. OpenAI's Responses API repeats the request's instructions and tools (tens of KB for an
 * agent) in every response object, which the gateway passes on unread.
 * @module
 */
import { memberSpans } from '../http/raw-json-body';

/** One object's bytes and its members' bounds (see the module comment). */
export class RawObject {
  private readonly spans: Map<string, readonly [number, number]>;

  /** `bytes` must start (after any spaces) with the object's `{`. */
  constructor(readonly bytes: Buffer) {
    this.spans = memberSpans(bytes);
  }

  /** Whether the bytes look like one object: `{` first and `}` last (what a scan can tell without parsing). */
  get wellFormed(): boolean {
    const text = this.bytes;
    let start = 0;
    let end = text.length - 1;
    while (start < end && text[start]! <= 0x20) start++;
    while (end > start && text[end]! <= 0x20) end--;
    return text[start] === 0x7b && text[end] === 0x7d;
  }

  has(name: string): boolean {
    return this.spans.has(name);
  }

  /** Member `name` parsed (undefined when absent or not JSON). */
  get(name: string): unknown {
    const span = this.spans.get(name);
    if (!span) return undefined;
    try {
      return JSON.parse(this.bytes.toString('utf8', span[0], span[1])) as unknown;
    } catch {
      return undefined;
    }
  }

  /** Member `name` as an object of its own, unparsed (null when absent or not an object). */
  object(name: string): RawObject | null {
    const span = this.spans.get(name);
    if (!span || this.bytes[span[0]] !== 0x7b) return null;
    return new RawObject(this.bytes.subarray(span[0], span[1]));
  }

  /**
   * The object as JSON text with `changes` written over its members (in place; undefined removes
   * one) and added after them; every other member as it came.
   */
  with(changes: Readonly<Record<string, unknown>>): string {
    const pieces: string[] = [];
    for (const [name, [start, end]] of this.spans) {
      const changed = Object.hasOwn(changes, name);
      if (changed && changes[name] === undefined) continue;
      const value = changed ? JSON.stringify(changes[name]) : this.bytes.toString('utf8', start, end);
      pieces.push(`${JSON.stringify(name)}:${value}`);
    }
    for (const [name, value] of Object.entries(changes))
      if (!this.spans.has(name) && value !== undefined) pieces.push(`${JSON.stringify(name)}:${JSON.stringify(value)}`);
    return `{${pieces.join(',')}}`;
  }
}
