/**
 * Chat wire formats of the fake upstreams (OpenAI `/chat/completions`, Anthropic `/messages`),
 * deterministic from the request so tests can assert exact answers:
 * - the reply is `echo: <last user text>`, one completion token per word (cut to `max_tokens`
 *   words, then `length`); after a tool result (the last message) it is `result: <its text>`, so a
 *   round trip shows the result reached the model; with `response_format` `json_object` or
 *   `json_schema` (Anthropic: `output_config.format`) it is the JSON `{"echo": <that text>}`;
 * - when the request has tools and the last message is the user's, the model calls the first
 *   tool with `{"text": <last user text>}`;
 * - prompt tokens are the words of every text in the request (Anthropic: text blocks marked
 *   `cache_control`, or all of them under a top-level one, count as cache reads);
 * - streams are real SSE events, one per write: a word per chunk, tool-call arguments in three
 *   pieces, usage last (OpenAI only when `stream_options.include_usage` is set).
 * - Anthropic with `thinking: {type: "enabled"}`: a thinking block (`thinking about: <last user
 *   text>`, signature `sig_fake_1`) comes before the reply, streamed as a thinking and a signature delta.
 * - OpenAI with `reasoning_effort`: reasoning tokens in usage (2 per effort level above `none`);
 *   a model whose name holds `reasoner` or `deepseek` also writes its reasoning as DeepSeek does, in
 *   `reasoning_content` (`thinking about: <last user text>`), one holding `gpt-oss` in `reasoning`
 *   (as Groq does).
 * - Anthropic with `thinking` enabled or adaptive: a last user text holding `redact` also gets a
 *   `redacted_thinking` block (`enc_fake_1`) first.
 * Both refuse what the real providers refuse: OpenAI a parameter it does not define and reasoning
 * sent back on a message (DeepSeek's rule); Anthropic a thinking budget under 1024 or not below
 * `max_tokens`, a budget at all on Claude 4.6 and 5 (adaptive only), sampling parameters on Opus 5.5,
 * `temperature` with thinking, a thinking block whose signature is not its own, and
 * with thinking on, an assistant tool call whose turn does not open with its thinking.
 * Usage is left out when the fake's `reportUsage` is off.
 */

/** The signature the fake Anthropic wire signs its thinking with. */
export const FAKE_SIGNATURE = 'sig_fake_1';
/** The data of the fake Anthropic wire's redacted thinking. */
export const FAKE_REDACTED = 'enc_fake_1';

/** The request parameters OpenAI's chat completions defines (and the compatible servers' extensions the catalog may list). */
const OPENAI_PARAMETERS = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'response_format',
  'temperature',
  'top_p',
  'stop',
  'seed',
  'logprobs',
  'top_logprobs',
  'max_tokens',
  'max_completion_tokens',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'parallel_tool_calls',
  'user',
  'stream',
  'stream_options',
  'reasoning_effort',
  'n',
  'store',
  'metadata',
  'prediction',
  'service_tier',
  'prompt_cache_key',
  'verbosity',
  'modalities',
  'audio',
  'web_search_options',
  'top_k',
  'min_p',
  'repetition_penalty',
  'safety_identifier',
]);
/** Reasoning tokens per effort level in the fake's usage. */
const EFFORT_TOKENS: Record<string, number> = { none: 0, minimal: 2, low: 4, medium: 6, high: 8, xhigh: 10 };

/** A chat wire a fake serves beside (or instead of) an embeddings wire. */
export interface ChatWire {
  /** The path suffix it answers (`/chat/completions`, `/messages`). */
  path: string;
  /** Whether it answers `path` (the URL path without its query), where a suffix is not enough (`models/{m}:generateContent`). */
  matches?(path: string): boolean;
  /** Whether a request asks for a stream, where the body does not say it (default: `body.stream === true`). */
  streams?(path: string, query: URLSearchParams, body: Record<string, unknown>): boolean;
  /** The stream's content type (default `text/event-stream`), for a binary framing such as AWS event streams. */
  streamContentType?: string;
  /** Checks a request's authentication (a signature); a non-null result is sent as that status and body. */
  authenticate?(req: {
    method: string;
    url: string;
    headers: Record<string, string | string[] | undefined>;
    rawBody: Buffer;
  }):
    | { status: number; body: unknown; headers?: Record<string, string> }
    | null
    | Promise<{ status: number; body: unknown; headers?: Record<string, string> } | null>;
  /** The whole answer to a non-streamed request (`path`: the URL path, for wires that name the model there). */
  answer(body: Record<string, unknown>, opts: { reportUsage: boolean; path?: string }): unknown;
  /** A streamed answer as complete SSE events (`…\n\n`), or binary frames, written one per write. */
  events(body: Record<string, unknown>, opts: { reportUsage: boolean; path?: string }): Array<string | Buffer>;
  /** The wire's in-stream error event. */
  errorEvent: string | Buffer;
  /** The provider's own 400 body for a request it refuses (as the real one validates), or null. */
  refuse?(body: Record<string, unknown>, path?: string): unknown;
}

/** When the fake's answers were created (unix seconds). */
export const FAKE_CREATED = 1767225600;

export const words = (text: string) => text.split(/\s+/).filter(Boolean);

/** Every text in a request's messages (`text` members and string `content`), for the prompt token count. */
export function textsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) textsIn(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if ((k === 'text' || k === 'content') && typeof v === 'string') out.push(v);
      else if (k !== 'image_url' && k !== 'source' && k !== 'input') textsIn(v, out);
    }
  }
  return out;
}

export const wordCount = (value: unknown) => textsIn(value).reduce((n, t) => n + words(t).length, 0);

/** The text of a message's content (a string, or its text parts/blocks joined). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: { type?: string; text?: string }) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
}

/** What the fake model does for a request, whichever wire asked. */
export interface Turn {
  /** The reply text (already cut to the bound), or null when it calls a tool. */
  text: string | null;
  tool: { name: string; arguments: string } | null;
  finish: 'stop' | 'length' | 'tool';
  promptTokens: number;
  completionTokens: number;
}

/** What the reply answers: the last user text, or the tool result when that is the last message. */
export interface Asked {
  lastUser: string | null;
  toolResult: string | null;
  /** `response_format` asked for JSON (`json_object` / `json_schema`). */
  json: boolean;
}

export function turnFor(asked: Asked, toolName: string | null, maxTokens: unknown, promptTokens: number): Turn {
  const { lastUser, toolResult } = asked;
  if (toolName !== null && lastUser !== null) {
    const args = JSON.stringify({ text: lastUser });
    return {
      text: null,
      tool: { name: toolName, arguments: args },
      finish: 'tool',
      promptTokens,
      completionTokens: Math.max(1, words(args).length),
    };
  }
  const said = toolResult !== null ? `result: ${toolResult}` : `echo: ${lastUser ?? ''}`;
  const all = words(asked.json ? JSON.stringify({ echo: toolResult ?? lastUser ?? '' }) : said);
  const kept = typeof maxTokens === 'number' && maxTokens < all.length ? all.slice(0, maxTokens) : all;
  return {
    text: kept.join(' '),
    tool: null,
    finish: kept.length < all.length ? 'length' : 'stop',
    promptTokens,
    completionTokens: kept.length,
  };
}

/** The reply split into per-word pieces (spaces kept), the tool arguments into three pieces. */
export function pieces(text: string): string[] {
  return text.split(/(?<= )/);
}
function thirds(text: string): string[] {
  const a = Math.ceil(text.length / 3);
  return [text.slice(0, a), text.slice(a, 2 * a), text.slice(2 * a)].filter(Boolean);
}

/** Whether `response_format` asks for a JSON reply. */
function wantsJson(body: Record<string, unknown>): boolean {
  const type = (body.response_format as { type?: string } | undefined)?.type;
  return type === 'json_object' || type === 'json_schema';
}

// ---- OpenAI ----------------------------------------------------------------------------------

interface OpenAITurn extends Turn {
  reasoningTokens: number;
  /** The reasoning text, for a `reasoner`, `deepseek` or `gpt-oss` model. */
  reasoning: string | null;
  /** Where it is written: DeepSeek's `reasoning_content`, or `reasoning` as Groq writes gpt-oss's. */
  field: 'reasoning' | 'reasoning_content';
}

function openaiTurn(body: Record<string, unknown>): OpenAITurn {
  const t = chatTurn(body);
  const reasoningTokens = EFFORT_TOKENS[String(body.reasoning_effort)] ?? 0;
  const messages = (body.messages as Array<{ role: string; content?: unknown }>) ?? [];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const model = String(body.model);
  const reasoning = /reasoner|deepseek|gpt-oss/.test(model) ? `thinking about: ${textOf(lastUser?.content)}` : null;
  const field = model.includes('gpt-oss') ? 'reasoning' : 'reasoning_content';
  return { ...t, completionTokens: t.completionTokens + reasoningTokens, reasoningTokens, reasoning, field };
}

function chatTurn(body: Record<string, unknown>): Turn {
  const messages = (body.messages as Array<{ role: string; content?: unknown }>) ?? [];
  const last = messages[messages.length - 1];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const tools = body.tools as Array<{ function: { name: string } }> | undefined;
  const toolName = tools?.length && last?.role === 'user' ? tools[0]!.function.name : null;
  const asked = {
    lastUser: lastUser ? textOf(lastUser.content) : null,
    toolResult: last?.role === 'tool' ? textOf(last.content) : null,
    json: wantsJson(body),
  };
  return turnFor(asked, toolName, body.max_completion_tokens ?? body.max_tokens, wordCount(messages));
}

const OPENAI_FINISH = { stop: 'stop', length: 'length', tool: 'tool_calls' } as const;
/** `n` choices (OpenAI's), each the same turn. */
const choicesOf = (body: Record<string, unknown>) => (typeof body.n === 'number' ? body.n : 1);

const openaiUsage = (t: OpenAITurn, n = 1) => ({
  prompt_tokens: t.promptTokens,
  completion_tokens: n * t.completionTokens,
  total_tokens: t.promptTokens + n * t.completionTokens,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: t.reasoningTokens },
});

/** OpenAI's 400 for an unknown parameter, or DeepSeek's for reasoning sent back on a message. */
function openaiRefusal(body: Record<string, unknown>): unknown {
  const unknown = Object.keys(body).find((k) => !OPENAI_PARAMETERS.has(k));
  if (unknown)
    return { error: { message: `Unrecognized request argument supplied: ${unknown}`, type: 'invalid_request_error' } };
  const messages = Array.isArray(body.messages) ? (body.messages as Array<Record<string, unknown>>) : [];
  const carrying = messages.find((m) => 'reasoning_content' in m || 'reasoning_details' in m || 'reasoning' in m);
  if (carrying)
    return { error: { message: 'reasoning fields are not accepted on input messages', type: 'invalid_request_error' } };
  return null;
}

/** OpenAI-compatible `/chat/completions`. */
export const openaiChatWire: ChatWire = {
  path: '/chat/completions',
  refuse: openaiRefusal,
  answer(body, opts) {
    const t = openaiTurn(body);
    const toolCalls = t.tool ? [{ id: 'call_fake_1', type: 'function', function: t.tool }] : undefined;
    return {
      id: 'chatcmpl-fake-1',
      object: 'chat.completion',
      created: FAKE_CREATED,
      model: String(body.model),
      system_fingerprint: 'fp_fake',
      choices: Array.from({ length: choicesOf(body) }, (_, index) => ({
        index,
        message: {
          role: 'assistant',
          content: t.text,
          refusal: null,
          ...(t.reasoning ? { [t.field]: t.reasoning } : {}),
          ...(toolCalls ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: OPENAI_FINISH[t.finish],
      })),
      ...(opts.reportUsage ? { usage: openaiUsage(t, choicesOf(body)) } : {}),
    };
  },
  events(body, opts) {
    const t = openaiTurn(body);
    const withUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const chunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}, index = 0) =>
      `data: ${JSON.stringify({
        id: 'chatcmpl-fake-1',
        object: 'chat.completion.chunk',
        created: FAKE_CREATED,
        model: String(body.model),
        system_fingerprint: 'fp_fake',
        choices: [{ index, delta, logprobs: null, finish_reason: finish }],
        ...(withUsage ? { usage: null } : {}),
        ...extra,
      })}\n\n`;
    const out = [chunk({ role: 'assistant', content: '', refusal: null })];
    if (t.reasoning) for (const part of pieces(t.reasoning)) out.push(chunk({ [t.field]: part }));
    if (t.tool) {
      out.push(
        chunk({
          tool_calls: [
            { index: 0, id: 'call_fake_1', type: 'function', function: { name: t.tool.name, arguments: '' } },
          ],
        }),
      );
      for (const part of thirds(t.tool.arguments))
        out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] }));
    } else for (const part of pieces(t.text ?? '')) out.push(chunk({ content: part }));
    out.push(chunk({}, OPENAI_FINISH[t.finish]));
    // Further choices (n > 1) after the first, whole in one chunk each.
    for (let i = 1; i < choicesOf(body); i++)
      out.push(chunk({ role: 'assistant', content: t.text ?? '' }, OPENAI_FINISH[t.finish], {}, i));
    if (withUsage && opts.reportUsage) {
      const last = JSON.parse(chunk({}).slice(6)) as Record<string, unknown>;
      out.push(`data: ${JSON.stringify({ ...last, choices: [], usage: openaiUsage(t, choicesOf(body)) })}\n\n`);
    }
    out.push('data: [DONE]\n\n');
    return out;
  },
  errorEvent: `data: ${JSON.stringify({ error: { message: 'fake stream failure', type: 'server_error', param: null, code: null } })}\n\n`,
};

// ---- Anthropic -------------------------------------------------------------------------------

interface AnthropicTurn extends Turn {
  cacheRead: number;
  /** The thinking block's text, when the request enabled thinking. */
  thinking: string | null;
  /** A redacted thinking block comes first. */
  redacted: boolean;
}

function anthropicTurn(body: Record<string, unknown>): AnthropicTurn {
  const messages = (body.messages as Array<{ role: string; content: unknown }>) ?? [];
  const last = messages[messages.length - 1];
  const isToolResult = (m: { content: unknown }) =>
    Array.isArray(m.content) && m.content.some((b: { type?: string }) => b.type === 'tool_result');
  const lastUser = [...messages].reverse().find((m) => m.role === 'user' && !isToolResult(m));
  const tools = body.tools as Array<{ name: string }> | undefined;
  const toolName = tools?.length && last?.role === 'user' && !isToolResult(last) ? tools[0]!.name : null;
  // A Messages door body passes its `system` through as sent: a string, or text blocks.
  const system: Array<{ text: string; cache_control?: unknown }> =
    typeof body.system === 'string'
      ? [{ text: body.system }]
      : ((body.system as Array<{ text: string; cache_control?: unknown }> | undefined) ?? []);
  const prompt = wordCount(messages) + wordCount(system);
  // Automatic caching (a top-level `cache_control`) reads the system prompt as a marked block would.
  const marked = body.cache_control ? system : system.filter((b) => b.cache_control);
  const cacheRead = marked.reduce((n, b) => n + words(b.text).length, 0);
  const results =
    last && isToolResult(last)
      ? (last.content as Array<{ type: string; content?: unknown }>).filter((b) => b.type === 'tool_result')
      : [];
  const asked = {
    lastUser: lastUser ? textOf(lastUser.content) : null,
    toolResult: results.length ? results.map((b) => textOf(b.content)).join(' ') : null,
    // Structured outputs: `output_config.format` (or the beta's `output_format`) with a schema.
    json:
      (
        (body.output_config as { format?: { type?: string } } | undefined)?.format ??
        (body.output_format as { type?: string } | undefined)
      )?.type === 'json_schema',
  };
  const type = (body.thinking as { type?: string } | undefined)?.type;
  const thinking = type === 'enabled' || type === 'adaptive' ? `thinking about: ${asked.lastUser ?? ''}` : null;
  const redacted = thinking !== null && (asked.lastUser ?? '').includes('redact');
  return { ...turnFor(asked, toolName, body.max_tokens, prompt), cacheRead, thinking, redacted };
}

const anthropicError = (message: string) => ({ type: 'error', error: { type: 'invalid_request_error', message } });

/** What Anthropic refuses about thinking (see the module comment). */
function anthropicRefusal(body: Record<string, unknown>): unknown {
  const thinking = body.thinking as { type?: string; budget_tokens?: number } | undefined;
  const on = thinking?.type === 'enabled' || thinking?.type === 'adaptive';
  const model = String(body.model);
  if (thinking?.type === 'enabled' && /claude-(opus|sonnet)-(4-6|5)/.test(model))
    return anthropicError('"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive"');
  if (/claude-opus-5-5/.test(model) && ['temperature', 'top_p', 'top_k'].some((k) => k in body))
    return anthropicError('temperature, top_p and top_k are not supported for this model');
  if (thinking?.type === 'enabled') {
    const budget = thinking.budget_tokens ?? 0;
    if (budget < 1024) return anthropicError('thinking.budget_tokens: must be at least 1024');
    if (budget >= Number(body.max_tokens))
      return anthropicError('`max_tokens` must be greater than `thinking.budget_tokens`');
  }
  if (on && body.temperature !== undefined && body.temperature !== 1)
    return anthropicError('`temperature` may only be set to 1 when thinking is enabled');
  const messages = (body.messages as Array<{ role: string; content: unknown }>) ?? [];
  for (const m of messages) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    const blocks = m.content as Array<{ type?: string; signature?: string }>;
    if (blocks.some((b) => b.type === 'thinking' && b.signature !== FAKE_SIGNATURE))
      return anthropicError('Invalid `signature` in `thinking` block');
    const opensWithThinking = blocks[0]?.type === 'thinking' || blocks[0]?.type === 'redacted_thinking';
    if (on && blocks.some((b) => b.type === 'tool_use') && !opensWithThinking)
      return anthropicError('Expected `thinking` or `redacted_thinking`, but found `tool_use`');
  }
  return null;
}

const ANTHROPIC_STOP = { stop: 'end_turn', length: 'max_tokens', tool: 'tool_use' } as const;
const anthropicUsage = (t: AnthropicTurn, output: number) => ({
  input_tokens: t.promptTokens - t.cacheRead,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: t.cacheRead,
  output_tokens: output,
});
const sse = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** Anthropic Messages `/v1/messages`. */
export const anthropicChatWire: ChatWire = {
  path: '/messages',
  refuse: anthropicRefusal,
  answer(body, opts) {
    const t = anthropicTurn(body);
    const reply = t.tool
      ? [{ type: 'tool_use', id: 'toolu_fake_1', name: t.tool.name, input: JSON.parse(t.tool.arguments) as unknown }]
      : [{ type: 'text', text: t.text }];
    const content = t.thinking
      ? [
          ...(t.redacted ? [{ type: 'redacted_thinking', data: FAKE_REDACTED }] : []),
          { type: 'thinking', thinking: t.thinking, signature: FAKE_SIGNATURE },
          ...reply,
        ]
      : reply;
    return {
      id: 'msg_fake_1',
      type: 'message',
      role: 'assistant',
      model: String(body.model),
      content,
      stop_reason: ANTHROPIC_STOP[t.finish],
      stop_sequence: null,
      ...(opts.reportUsage ? { usage: anthropicUsage(t, t.completionTokens) } : {}),
    };
  },
  events(body, opts) {
    const t = anthropicTurn(body);
    const message = {
      id: 'msg_fake_1',
      type: 'message',
      role: 'assistant',
      model: String(body.model),
      content: [],
      stop_reason: null,
      stop_sequence: null,
    };
    const out = [
      sse('message_start', { message: { ...message, ...(opts.reportUsage ? { usage: anthropicUsage(t, 1) } : {}) } }),
    ];
    const first = t.redacted ? 1 : 0;
    const index = t.thinking ? first + 1 : 0;
    if (t.redacted) {
      out.push(
        sse('content_block_start', { index: 0, content_block: { type: 'redacted_thinking', data: FAKE_REDACTED } }),
      );
      out.push(sse('content_block_stop', { index: 0 }));
    }
    if (t.thinking) {
      const at = first;
      out.push(
        sse('content_block_start', { index: at, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      );
      out.push(sse('content_block_delta', { index: at, delta: { type: 'thinking_delta', thinking: t.thinking } }));
      out.push(
        sse('content_block_delta', { index: at, delta: { type: 'signature_delta', signature: FAKE_SIGNATURE } }),
      );
      out.push(sse('content_block_stop', { index: at }));
    }
    if (t.tool) {
      out.push(
        sse('content_block_start', {
          index,
          content_block: { type: 'tool_use', id: 'toolu_fake_1', name: t.tool.name, input: {} },
        }),
      );
      out.push(sse('ping', {}));
      out.push(sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }));
      for (const part of thirds(t.tool.arguments))
        out.push(sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } }));
    } else {
      out.push(sse('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      out.push(sse('ping', {}));
      for (const part of pieces(t.text ?? ''))
        out.push(sse('content_block_delta', { index, delta: { type: 'text_delta', text: part } }));
    }
    out.push(sse('content_block_stop', { index }));
    out.push(
      sse('message_delta', {
        delta: { stop_reason: ANTHROPIC_STOP[t.finish], stop_sequence: null },
        ...(opts.reportUsage ? { usage: { output_tokens: t.completionTokens } } : {}),
      }),
    );
    out.push(sse('message_stop', {}));
    return out;
  },
  errorEvent: sse('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
};
