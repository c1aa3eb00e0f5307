/**
 * OpenAI's Responses wire (`POST /responses`) for the fake upstreams, deterministic from the
 * request as the chat wires are (`turnFor`): the reply is `echo: <last user text>` (cut to
 * `max_output_tokens` words, then `incomplete`), a call of the first function or custom tool when
 * the request has tools and its last item is the user's, `result: <output>` after a tool result;
 * prompt tokens are the words of the instructions and input. With `reasoning.effort` above `none`
 * usage has reasoning tokens (2 per level); with `reasoning.summary` a reasoning item
 * (`thinking about: <last user text>`) comes first, with `encrypted_content` when `include` asks.
 * Every response object echoes the request as OpenAI's does (instructions, tools, …); streams are
 * the events OpenAI sends, in its order, each with the next `sequence_number`. It refuses what
 * OpenAI refuses: a parameter its Responses API does not define (the hosted service's `provider`,
 * `models`, `session_id` included).
 */
import type { ChatWire } from './chat-wires';
import { FAKE_CREATED, pieces, turnFor, wordCount, type Turn } from './chat-wires';

type Obj = Record<string, unknown>;

/** The request parameters OpenAI's Responses API defines. */
const RESPONSES_PARAMETERS = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'max_tool_calls',
  'temperature',
  'top_p',
  'top_logprobs',
  'text',
  'reasoning',
  'include',
  'prompt_cache_key',
  'prompt_cache_retention',
  'metadata',
  'user',
  'safety_identifier',
  'service_tier',
  'truncation',
  'stream',
  'stream_options',
  'store',
  'background',
  'previous_response_id',
  'conversation',
  'prompt',
]);

const EFFORT_TOKENS: Record<string, number> = { none: 0, minimal: 2, low: 4, medium: 6, high: 8, xhigh: 10 };

/** The text of an input message's content (a string, or its `input_text` parts). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: { type?: string; text?: string }) => (p.type === 'input_text' ? (p.text ?? '') : '')).join('');
}

interface ResponsesTurn extends Turn {
  custom: boolean;
  reasoningTokens: number;
  summary: string | null;
}

function turnOf(body: Obj): ResponsesTurn {
  const input: Obj[] =
    typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : ((body.input as Obj[]) ?? []);
  const last = input[input.length - 1];
  const lastUser = [...input].reverse().find((i) => i.role === 'user');
  const tools = ((body.tools as Obj[] | undefined) ?? []).filter((t) => t.type === 'function' || t.type === 'custom');
  const lastIsUser = last?.role === 'user';
  const isOutput = last?.type === 'function_call_output' || last?.type === 'custom_tool_call_output';
  const asked = {
    lastUser: lastUser ? textOf(lastUser.content) : null,
    toolResult: isOutput ? String(last.output) : null,
    json: ['json_object', 'json_schema'].includes(String((body.text as { format?: Obj } | undefined)?.format?.type)),
  };
  const prompt = wordCount([
    { content: body.instructions ?? '' },
    ...input.map((i) => ({ content: textOf(i.content) })),
  ]);
  const t = turnFor(asked, tools.length && lastIsUser ? String(tools[0]!.name) : null, body.max_output_tokens, prompt);
  const reasoning = body.reasoning as { effort?: string; summary?: string } | undefined;
  const reasoningTokens = EFFORT_TOKENS[String(reasoning?.effort)] ?? 0;
  return {
    ...t,
    completionTokens: t.completionTokens + reasoningTokens,
    custom: tools[0]?.type === 'custom',
    reasoningTokens,
    summary: reasoning?.summary ? `thinking about: ${asked.lastUser ?? ''}` : null,
  };
}

/** The turn's output items, whole. */
function itemsOf(body: Obj, t: ResponsesTurn): Obj[] {
  const out: Obj[] = [];
  if (t.summary !== null) {
    const item: Obj = { id: 'rs_fake_1', type: 'reasoning', summary: [{ type: 'summary_text', text: t.summary }] };
    if ((body.include as string[] | undefined)?.includes('reasoning.encrypted_content'))
      item.encrypted_content = 'enc_fake_rs_1';
    out.push(item);
  }
  if (t.tool && t.custom)
    out.push({
      id: 'ctc_fake_1',
      type: 'custom_tool_call',
      status: 'completed',
      call_id: 'call_fake_1',
      name: t.tool.name,
      input: (JSON.parse(t.tool.arguments) as { text: string }).text,
    });
  else if (t.tool)
    out.push({ id: 'fc_fake_1', type: 'function_call', status: 'completed', call_id: 'call_fake_1', ...t.tool });
  else
    out.push({
      id: 'msg_fake_1',
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: t.text ?? '', annotations: [], logprobs: [] }],
    });
  return out;
}

function responseOf(body: Obj, t: ResponsesTurn, reportUsage: boolean, status: string, output: Obj[]): Obj {
  const done = status !== 'in_progress';
  return {
    id: 'resp_fake_1',
    object: 'response',
    created_at: FAKE_CREATED,
    status,
    background: false,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: String(body.model),
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: body.reasoning ?? { effort: null, summary: null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    metadata: body.metadata ?? {},
    usage:
      done && reportUsage
        ? {
            input_tokens: t.promptTokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: t.completionTokens,
            output_tokens_details: { reasoning_tokens: t.reasoningTokens },
            total_tokens: t.promptTokens + t.completionTokens,
          }
        : null,
  };
}

const finalStatus = (t: Turn) => (t.finish === 'length' ? 'incomplete' : 'completed');

/** The events that add, fill and close one output item. */
function itemEvents(item: Obj, index: number, event: (type: string, data: Obj) => void): void {
  const at = { output_index: index, item_id: item.id };
  if (item.type === 'message') {
    const text = String((item.content as Obj[])[0]!.text);
    event('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } });
    const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
    event('response.content_part.added', { ...at, content_index: 0, part });
    for (const delta of pieces(text))
      event('response.output_text.delta', { ...at, content_index: 0, delta, logprobs: [] });
    event('response.output_text.done', { ...at, content_index: 0, text, logprobs: [] });
    event('response.content_part.done', { ...at, content_index: 0, part: { ...part, text } });
  } else if (item.type === 'reasoning') {
    const text = String((item.summary as Obj[])[0]!.text);
    event('response.output_item.added', { output_index: index, item: { ...item, summary: [] } });
    event('response.reasoning_summary_part.added', {
      ...at,
      summary_index: 0,
      part: { type: 'summary_text', text: '' },
    });
    for (const delta of pieces(text))
      event('response.reasoning_summary_text.delta', { ...at, summary_index: 0, delta });
    event('response.reasoning_summary_text.done', { ...at, summary_index: 0, text });
    event('response.reasoning_summary_part.done', { ...at, summary_index: 0, part: { type: 'summary_text', text } });
  } else {
    const custom = item.type === 'custom_tool_call';
    const value = String(custom ? item.input : item.arguments);
    const empty = custom ? { input: '' } : { arguments: '' };
    event('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', ...empty } });
    const kind = custom ? 'custom_tool_call_input' : 'function_call_arguments';
    const a = Math.ceil(value.length / 3);
    for (const delta of [value.slice(0, a), value.slice(a, 2 * a), value.slice(2 * a)].filter(Boolean))
      event(`response.${kind}.delta`, { ...at, delta });
    event(`response.${kind}.done`, { ...at, ...(custom ? { input: value } : { arguments: value }) });
  }
  event('response.output_item.done', { output_index: index, item });
}

/** OpenAI's `/responses`. */
export const openaiResponsesWire: ChatWire = {
  path: '/responses',
  refuse(body) {
    const unknown = Object.keys(body).find((k) => !RESPONSES_PARAMETERS.has(k));
    return unknown
      ? { error: { message: `Unknown parameter: '${unknown}'.`, type: 'invalid_request_error', param: unknown } }
      : null;
  },
  answer(body, opts) {
    const t = turnOf(body);
    return responseOf(body, t, opts.reportUsage, finalStatus(t), itemsOf(body, t));
  },
  events(body, opts) {
    const t = turnOf(body);
    const out: string[] = [];
    const event = (type: string, data: Obj) =>
      out.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: out.length, ...data })}\n\n`);
    const opening = responseOf(body, t, opts.reportUsage, 'in_progress', []);
    event('response.created', { response: opening });
    event('response.in_progress', { response: opening });
    const items = itemsOf(body, t);
    items.forEach((item, index) => itemEvents(item, index, event));
    const status = finalStatus(t);
    event(`response.${status}`, { response: responseOf(body, t, opts.reportUsage, status, items) });
    return out;
  },
  errorEvent: `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'server_error', message: 'fake failure', param: null, sequence_number: 999 })}\n\n`,
};
