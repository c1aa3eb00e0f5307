/**
 * A whole `chat.completion` assembled from the chat door's own stream (`chat.completion.chunk`
 * events, then the gateway's usage chunk): how a whole answer is served when it was read from the
 * upstream as a stream so that the budget could meter it (budgets/slices.ts). Each choice's
 * deltas are joined as the client's SDK joins them: content, refusal and reasoning texts in
 * order, reasoning details by their index, tool calls by theirs (arguments concatenated).
 * @module
 */
import { asObject } from '../providers/parse';
import { parseJson } from '../providers/raw-json';
import { SseSplitter } from '../providers/sse';
import type { StreamHead } from '../providers/chat-types';

type Json = Record<string, unknown>;

/** One choice being assembled. */
interface Choice {
  content: string | null;
  refusal: string | null;
  reasoning: string | null;
  details: Map<number, Json>;
  calls: Map<number, { id?: unknown; type: string; function: { name: string; arguments: string } }>;
  finish: unknown;
  native: unknown;
}

/** `a` + `b`, staying null while nothing was added. */
const joined = (a: string | null, b: unknown): string | null => (typeof b === 'string' ? (a ?? '') + b : a);

/** A reasoning detail's piece joined into its block (texts appended, the other members the latest). */
function joinDetail(into: Json | undefined, piece: Json): Json {
  if (!into) return { ...piece };
  const out: Json = { ...into, ...piece };
  for (const key of ['text', 'summary', 'data'])
    if (typeof into[key] === 'string' && typeof piece[key] === 'string') out[key] = `${into[key]}${piece[key]}`;
  return out;
}

function addDelta(c: Choice, d: Json): void {
  c.content = joined(c.content, d.content);
  c.refusal = joined(c.refusal, d.refusal);
  c.reasoning = joined(c.reasoning, d.reasoning);
  if (Array.isArray(d.reasoning_details))
    for (const raw of d.reasoning_details) {
      const piece = asObject(raw);
      const index = typeof piece?.index === 'number' ? piece.index : c.details.size;
      if (piece) c.details.set(index, joinDetail(c.details.get(index), piece));
    }
  if (!Array.isArray(d.tool_calls)) return;
  for (const raw of d.tool_calls) {
    const call = asObject(raw);
    if (!call) continue;
    const index = typeof call.index === 'number' ? call.index : c.calls.size;
    const fn = asObject(call.function);
    const known = c.calls.get(index) ?? { type: 'function', function: { name: '', arguments: '' } };
    if (call.id !== undefined) known.id = call.id;
    if (typeof fn?.name === 'string') known.function.name += fn.name;
    if (typeof fn?.arguments === 'string') known.function.arguments += fn.arguments;
    c.calls.set(index, known);
  }
}

/** The choice's message and stops, as a whole answer writes them. */
function choiceOut(index: number, c: Choice): Json {
  const message: Json = { role: 'assistant', content: c.content };
  if (c.refusal !== null) message.refusal = c.refusal;
  if (c.reasoning !== null) message.reasoning = c.reasoning;
  if (c.details.size > 0) message.reasoning_details = [...c.details.values()];
  if (c.calls.size > 0) message.tool_calls = [...c.calls.values()];
  return { index, message, finish_reason: c.finish ?? null, native_finish_reason: c.native ?? null, logprobs: null };
}

/** The whole answer's JSON from the chat door's stream `events` (SSE text); `fallback` names it when no chunk does. */
export function assembleCompletion(events: string, fallback: StreamHead): string {
  const sse = new SseSplitter();
  const all = [...sse.push(Buffer.from(events)), ...sse.end()];
  const choices = new Map<number, Choice>();
  let head: Json | null = null;
  let usage: unknown = undefined;
  let metadata: unknown = undefined;
  let fingerprint: unknown = null;
  for (const e of all) {
    const chunk = asObject(parseJson(e.data));
    if (!chunk) continue;
    head ??= chunk;
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage;
    if (chunk.metadata !== undefined) metadata = chunk.metadata;
    if (typeof chunk.system_fingerprint === 'string') fingerprint = chunk.system_fingerprint;
    for (const raw of Array.isArray(chunk.choices) ? chunk.choices : []) {
      const choice = asObject(raw);
      if (!choice) continue;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      const c = choices.get(index) ?? {
        ...{ content: null, refusal: null, reasoning: null, details: new Map(), calls: new Map() },
        ...{ finish: null, native: null },
      };
      choices.set(index, c);
      const delta = asObject(choice.delta);
      if (delta) addDelta(c, delta);
      if (typeof choice.finish_reason === 'string') c.finish = choice.finish_reason;
      if (typeof choice.native_finish_reason === 'string') c.native = choice.native_finish_reason;
    }
  }
  head ??= { ...fallback };
  const ordered = [...choices.entries()].sort(([a], [b]) => a - b);
  return JSON.stringify({
    id: head.id,
    object: 'chat.completion',
    created: head.created,
    model: head.model,
    provider: head.provider,
    system_fingerprint: fingerprint,
    choices: ordered.map(([index, c]) => choiceOut(index, c)),
    usage,
    ...(metadata === undefined ? {} : { metadata }),
  });
}
