/**
 * An OpenAI-compatible stream passed through event by event. Chunks go to the client as the
 * upstream wrote them; JSON is parsed only until the first content chunk (to know when fallback
 * ends) and, after that, only for chunks that a substring test says may hold usage, a finish
 * reason or an error. Inside a JSON string every `"` is escaped, so a key test such as
 * `"usage":{` cannot match generated text; a false positive would only cost one parse.
 * @module
 */
import type { ChatStream, ChatUsage, FinishReason, StreamHead, StreamSummary } from '../chat-types';
import { frame, streamError, summaryOf } from '../chat-stream-parts';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { SseSplitter, type SseEvent } from '../sse';
import { normaliseFinish, usageOf } from './chat-response';
import { GeneratedText, scaled } from '../generated-text';
import { countTokens } from '../../usage/tokens';
import { hasReasoning, rewriteDelta } from './reasoning';

const HAS_USAGE = /"usage"\s*:\s*\{/;
/** A chunk's `"id": "…"` and `"model": "…"` members as the upstream wrote them (JSON ids and model names hold no quotes). */
const ID_MEMBER = /"id"\s*:\s*"[^"\\]*"/;
const MODEL_MEMBER = /"model"\s*:\s*"[^"\\]*"/;
/** `"usage": null`, which OpenAI-compatible upstreams write in every chunk once include_usage is set. */
const NULL_USAGE = /,\s*"usage"\s*:\s*null|"usage"\s*:\s*null\s*,?/;
const HAS_FINISH = /"finish_reason"\s*:\s*"/;

/** Whether a chunk's choices carry content: text, a refusal, a tool call, or reasoning (the model has started: no fallback). */
function hasContent(choices: unknown[]): boolean {
  return choices.some((c) => {
    const d = asObject(asObject(c)?.delta);
    return (
      !!d &&
      ((typeof d.content === 'string' && d.content !== '') ||
        (typeof d.refusal === 'string' && d.refusal !== '') ||
        (Array.isArray(d.tool_calls) && d.tool_calls.length > 0) ||
        hasReasoning(d))
    );
  });
}

/**
 * A chunk's data with its deltas' reasoning normalised (`reasoning_content` → `reasoning` and a
 * detail) or, when `hide`, left out; parsed only when a substring test says it may hold reasoning.
 */
function reasoningRewritten(data: string, hide: boolean): string {
  if (!(hide ? data.includes('"reasoning') : data.includes('"reasoning_content"'))) return data;
  const chunk = asObject(parseJson(data));
  if (!chunk || !Array.isArray(chunk.choices)) return data;
  for (const c of chunk.choices) {
    const delta = asObject(asObject(c)?.delta);
    if (delta) rewriteDelta(delta, hide);
  }
  return JSON.stringify(chunk);
}

/** Each choice delta of the kept chunks, for the summary's lazy reads. */
function* deltas(kept: readonly string[], filter?: string): Generator<Record<string, unknown>> {
  for (const data of kept) {
    if (filter !== undefined && !data.includes(filter)) continue;
    const choices = asObject(parseJson(data))?.choices;
    if (!Array.isArray(choices)) continue;
    for (const c of choices) {
      const d = asObject(asObject(c)?.delta);
      if (d) yield d;
    }
  }
}

/** The text a stream generated (content, refusal, tool names and arguments), from its kept chunks. */
function generatedText(kept: readonly string[]): string {
  let text = '';
  for (const d of deltas(kept)) {
    if (typeof d.content === 'string') text += d.content;
    if (typeof d.refusal === 'string') text += d.refusal;
    if (typeof d.reasoning === 'string') text += d.reasoning;
    else if (typeof d.reasoning_content === 'string') text += d.reasoning_content;
    if (!Array.isArray(d.tool_calls)) continue;
    for (const call of d.tool_calls) {
      const fn = asObject(asObject(call)?.function);
      if (typeof fn?.name === 'string') text += fn.name;
      if (typeof fn?.arguments === 'string') text += fn.arguments;
    }
  }
  return text;
}

/** A lone choice's delta that holds content and nothing else: `"delta":{"content":"…"}` (the literal in group 1). */
const CONTENT_ONLY_DELTA = /"delta"\s*:\s*\{\s*"content"\s*:\s*"((?:[^"\\]|\\.)*)"\s*\}/;

/**
 * The UTF-8 bytes of the text one chunk generated, at least (escapes only lengthen a literal):
 * for a chunk whose only delta is content, the bytes of its literal, read without parsing the
 * chunk, as nearly every chunk of a streamed answer is; any other chunk is parsed.
 */
function generatedBytes(data: string): number {
  const first = data.indexOf('"delta"');
  const plain = first !== -1 && data.indexOf('"delta"', first + 7) === -1 ? CONTENT_ONLY_DELTA.exec(data) : null;
  return plain ? Buffer.byteLength(plain[1] as string) : Buffer.byteLength(generatedText([data]));
}

/** Tool calls started in one chunk's data (a call's first delta carries its `id`). */
function toolCallsStarted(data: string): number {
  let n = 0;
  for (const d of deltas([data])) {
    if (Array.isArray(d.tool_calls)) n += d.tool_calls.filter((call) => typeof asObject(call)?.id === 'string').length;
  }
  return n;
}

/** One OpenAI-compatible stream (see the module comment). */
export class OpenAIChatStream implements ChatStream {
  private readonly sse = new SseSplitter();
  /** The data of the events returned, up to a bound, for the summary's count (the strings exist already; nothing is copied). */
  private readonly kept = new GeneratedText();
  private toolCalls = 0;
  private usage: ChatUsage | null = null;
  private finishReason: FinishReason | null = null;
  private nativeFinishReason: string | null = null;
  private upstreamId: string | null = null;
  started = false;
  done = false;
  error: { code: number; message: string } | null = null;
  /** The gateway's members that replace the upstream's in each chunk. */
  private readonly ours: { id: string; model: string };
  /** Kept chunks already read for {@link generatedBound}, and the UTF-8 bytes of their text. */
  private bounded = 0;
  private boundedBytes = 0;
  /** The upstream's members exactly as its chunks write them, learnt from its first chunk. */
  private theirs: { id: string | null; model: string | null } | null = null;

  constructor(
    head: StreamHead,
    private readonly hideReasoning = false,
  ) {
    this.ours = {
      id: `"id":${JSON.stringify(head.id)}`,
      model: `"model":${JSON.stringify(head.model)},"provider":${JSON.stringify(head.provider)}`,
    };
  }

  push(chunk: Buffer): string[] {
    return this.handle(this.sse.push(chunk));
  }

  end(): string[] {
    const out = this.handle(this.sse.end());
    this.error ??= this.sse.overflowError(this.done);
    // A body that ends cleanly after a finish reason is a finished stream, `[DONE]` or not.
    if (!this.error && this.finishReason !== null) this.done = true;
    return out;
  }

  summary(): StreamSummary {
    const kept = this.kept;
    const parts = {
      usage: this.usage,
      finishReason: this.finishReason,
      nativeFinishReason: this.nativeFinishReason,
      toolCalls: this.toolCalls,
      upstreamId: this.upstreamId,
    };
    return summaryOf(parts, () => scaled(countTokens([generatedText(kept.keptParts)]), kept.keptShare));
  }

  /** The generated text's UTF-8 bytes, read from the chunks kept since the last call (scaled once the kept share is capped). */
  generatedBound(): number {
    const parts = this.kept.keptParts;
    for (; this.bounded < parts.length; this.bounded++)
      this.boundedBytes += generatedBytes(parts[this.bounded] as string);
    return scaled(this.boundedBytes, this.kept.keptShare);
  }

  private handle(events: SseEvent[]): string[] {
    const out: string[] = [];
    for (const e of events) {
      const data = this.event(e);
      if (data === null) continue;
      this.kept.add(data);
      if (data.includes('"tool_calls"')) this.toolCalls += toolCallsStarted(data);
      out.push(frame(reasoningRewritten(this.relabel(data), this.hideReasoning)));
    }
    return out;
  }

  /**
   * `data` with the gateway's id, model and provider in place of the upstream's, and without
   * `"usage": null` (the hosted service's SDK refuses it): literal replacements of the members the
   * first chunk showed, so the chunk is never parsed for it. Every chunk of a stream writes them alike.
   */
  private relabel(data: string): string {
    this.theirs ??= { id: ID_MEMBER.exec(data)?.[0] ?? null, model: MODEL_MEMBER.exec(data)?.[0] ?? null };
    let out = data;
    if (this.theirs.id !== null) out = out.replace(this.theirs.id, this.ours.id);
    if (this.theirs.model !== null) out = out.replace(this.theirs.model, this.ours.model);
    if (out.includes('"usage"') && !HAS_USAGE.test(out)) out = out.replace(NULL_USAGE, '');
    return out;
  }

  /** The data to pass on for one event; null when it is swallowed. */
  private event(e: SseEvent): string | null {
    if (this.done || this.error) return null;
    const data = e.data;
    if (data === '[DONE]') {
      this.done = true;
      return null;
    }
    if (e.event === 'error' || data.includes('"error"')) {
      this.error =
        streamError(parseJson(data)) ??
        (e.event === 'error' ? { code: 502, message: 'Provider returned error' } : null);
      if (this.error) return null;
    }
    if (this.started && !HAS_USAGE.test(data) && !HAS_FINISH.test(data)) return data;
    const chunk = asObject(parseJson(data));
    return chunk ? this.inspect(chunk, data) : data;
  }

  /** Read what a parsed chunk says; its data as passed on (without usage), or null for a usage-only chunk. */
  private inspect(chunk: Record<string, unknown>, data: string): string | null {
    if (this.upstreamId === null && typeof chunk.id === 'string') this.upstreamId = chunk.id;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    if (!this.started && hasContent(choices)) this.started = true;
    for (const c of choices) {
      const choice = asObject(c);
      if (typeof choice?.finish_reason !== 'string') continue;
      this.finishReason = normaliseFinish(choice.finish_reason);
      this.nativeFinishReason =
        typeof choice.native_finish_reason === 'string' ? choice.native_finish_reason : choice.finish_reason;
    }
    const usage = asObject(chunk.usage) ? usageOf(chunk.usage) : null;
    if (!usage) return data;
    this.usage = usage;
    if (this.finishReason) this.done = true;
    if (choices.length === 0) return null;
    delete chunk.usage;
    return JSON.stringify(chunk);
  }
}
