/**
 * Azure's streams as OpenAI's: its content-filter annotations are taken out of each event (the
 * whole answers lose them too, so both look alike) and its first event, which carries only the
 * prompt's filter results with an empty id and model, is dropped before the OpenAI translators
 * see it (they learn the id and model to relabel from the first event).
 * @module
 */
import type { EventTranslator, StreamEvent } from '../../inference/exchange';
import type { ChatStream } from '../chat-types';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { SseSplitter, type SseEvent } from '../sse';

/** One event's data without Azure's annotations; null for an event that carried nothing else. */
function withoutAnnotations(data: string): string | null {
  if (!data.includes('_filter_results"')) return data;
  const chunk = asObject(parseJson(data));
  if (!chunk) return data;
  delete chunk.prompt_filter_results;
  const choices = Array.isArray(chunk.choices) ? chunk.choices : null;
  for (const c of choices ?? []) delete asObject(c)?.content_filter_results;
  if (choices?.length === 0 && !chunk.id && !asObject(chunk.usage)) return null;
  return JSON.stringify(chunk);
}

/** Re-frames an Azure body's events without the annotations, for an OpenAI translator. */
class AnnotationFilter {
  private readonly sse = new SseSplitter();

  push(chunk: Buffer): Buffer {
    return this.frames(this.sse.push(chunk));
  }

  end(): Buffer {
    return this.frames(this.sse.end());
  }

  private frames(events: SseEvent[]): Buffer {
    let out = '';
    for (const e of events) {
      const data = withoutAnnotations(e.data);
      if (data !== null) out += `${e.event ? `event: ${e.event}\n` : ''}data: ${data}\n\n`;
    }
    return Buffer.from(out, 'utf8');
  }
}

/** The chat door's pass-through of an Azure stream: OpenAI's, fed the filtered events. */
export class AzureChatStream implements ChatStream {
  private readonly filter = new AnnotationFilter();

  constructor(private readonly inner: ChatStream) {}

  get started(): boolean {
    return this.inner.started;
  }
  get done(): boolean {
    return this.inner.done;
  }
  get error(): ChatStream['error'] {
    return this.inner.error;
  }

  push(chunk: Buffer): string[] {
    return this.inner.push(this.filter.push(chunk));
  }

  end(): string[] {
    return [...this.inner.push(this.filter.end()), ...this.inner.end()];
  }

  summary(): ReturnType<ChatStream['summary']> {
    return this.inner.summary();
  }

  generatedBound(): number {
    return this.inner.generatedBound?.() ?? 0;
  }
}

/** The canonical events of an Azure stream (for a door of another format): OpenAI's, fed the filtered events. */
export class AzureEvents implements EventTranslator {
  private readonly filter = new AnnotationFilter();

  constructor(private readonly inner: EventTranslator) {}

  get done(): boolean {
    return this.inner.done;
  }
  get upstreamId(): string | null {
    return this.inner.upstreamId;
  }

  push(chunk: Buffer): StreamEvent[] {
    return this.inner.push(this.filter.push(chunk));
  }

  end(): StreamEvent[] {
    return [...this.inner.push(this.filter.end()), ...this.inner.end()];
  }
}
