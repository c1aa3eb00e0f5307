/**
 * Hostile usage for the fake upstreams: faults that answer normally but report the usage a test
 * gives, whole or streamed, on the OpenAI and Anthropic wire formats. A case is a patch of the
 * wire's own usage object (nested `*_details` objects merged member by member), so the rest of
 * the answer stays what the fake would have sent.
 */
import type { Fault } from './server';

/** Members to set in a wire's usage object (`prompt_tokens_details: { cached_tokens: 1e9 }` …). */
export type UsagePatch = Record<string, unknown>;

function patched(usage: unknown, patch: UsagePatch): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(usage as Record<string, unknown>) };
  for (const [k, v] of Object.entries(patch)) {
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v)
        ? { ...(out[k] as Record<string, unknown> | undefined), ...v }
        : v;
  }
  return out;
}

/** Each `data:` JSON event of `events` passed through `edit` (events it returns unchanged are kept as they were). */
function editData(events: string[], edit: (data: Record<string, unknown>) => Record<string, unknown> | null): string[] {
  return events.map((event) => {
    const at = event.indexOf('data: {');
    if (at === -1) return event;
    const data = JSON.parse(event.slice(at + 6).trim()) as Record<string, unknown>;
    const next = edit(data);
    return next ? `${event.slice(0, at)}data: ${JSON.stringify(next)}\n\n` : event;
  });
}

/** An OpenAI-format answer (whole or streamed) whose usage carries `patch`. */
export function openaiUsageFault(patch: UsagePatch, stream: boolean): Fault {
  if (!stream) return { reshape: (body) => ({ ...body, usage: patched(body.usage, patch) }) };
  return {
    reshapeEvents: (events) => editData(events, (d) => (d.usage ? { ...d, usage: patched(d.usage, patch) } : null)),
  };
}

/**
 * An Anthropic answer (whole or streamed) whose usage carries `patch`. In a stream the input and
 * cache counts are `message_start`'s and `output_tokens` is the final `message_delta`'s.
 */
export function anthropicUsageFault(patch: UsagePatch, stream: boolean): Fault {
  if (!stream) return { reshape: (body) => ({ ...body, usage: patched(body.usage, patch) }) };
  const { output_tokens: output, ...input } = patch;
  return {
    reshapeEvents: (events) =>
      editData(events, (d) => {
        if (d.type === 'message_start') {
          const message = d.message as Record<string, unknown>;
          return { ...d, message: { ...message, usage: patched(message.usage, input) } };
        }
        if (d.type === 'message_delta' && output !== undefined)
          return { ...d, usage: patched(d.usage, { output_tokens: output }) };
        return null;
      }),
  };
}
