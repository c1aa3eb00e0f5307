/**
 * The chat benchmark's fake upstream: OpenAI-compatible `POST /v1/chat/completions` on 127.0.0.1,
 * answering from bytes built once (per prompt size) so the upstream itself costs as little as possible.
 * - Whole answers: one choice of about 500 completion tokens (about 2.6 kB of text), with usage.
 * - `stream: true`: 200 SSE events (the role, 197 content pieces (the whole answer's 500 in the whole
 *   cases, where only a gateway metering its budget streams), the finish reason, and with
 *   `stream_options.include_usage` the usage chunk with empty choices, as OpenAI sends it; without
 *   it the usage chunk is left out), then `data: [DONE]`. Each event is its own write, on its own
 *   turn of the event loop, so a reader sees the events arrive one by one as a model's tokens do,
 *   not as one block.
 * `POST /v1/messages` answers in Anthropic's format the same text: whole, or as its named events
 * (message_start, the text block's start, one text_delta per piece, its stop, message_delta with
 * the usage, message_stop), for the agent turns sent through the Messages door.
 * `POST /v1/responses` answers in OpenAI's Responses format the same text: a whole `response`, or
 * its named events as OpenAI sends them (response.created, response.in_progress, the message
 * item's and its text part's `added`, one output_text.delta per piece, the text's, the part's and
 * the item's `done`, response.completed with the usage), each with its `sequence_number`, for the
 * floor's and the direct targets' Responses turns (the gateway's Responses door asks
 * `/v1/chat/completions`). Its response objects (the whole answer's, and those of response.created,
 * response.in_progress and response.completed) repeat the request's members as OpenAI's do, in the
 * API's order: `instructions`, `tools`, `tool_choice`, `parallel_tool_calls`, `temperature`,
 * `max_output_tokens` and `store`, null for the sampling members and the ids the turn leaves unset,
 * and `metadata: {}`; the members the gateway's door writes (src/responses/echo.ts, response.ts)
 * but its `provider` (OpenAI's API also sends `text`, `truncation`, `service_tier` and a few more,
 * a few hundred bytes, which the door does not write, so neither does this server). So the floor
 * passes on as many bytes as it would in front of OpenAI's API: about 45 KB more per response
 * object, the tools and the system prompt (for the default turn a whole answer of 49 KB instead of
 * 3.5 KB, the stream case's stream 182 KB instead of 45 KB).
 * This server still does not parse the request: its only Responses clients are the bench's floor,
 * direct and proxy targets, all sending the bench's turn for the process's BENCH_AGENT_KB
 * (bench/lib/agent-request.js, `agentResponsesFields`), so the members come from that turn, built
 * once, on the first Responses request, and the answers are memoised as the others are.
 * The agent cases' turns (bench/lib/agent-request.js, up to 1 MB and more) get the same answer, so
 * an agent turn differs from the small chat request in what is sent only. The body is read whole
 * but not parsed: the few members the answer depends on are found in its bytes (see
 * {@link readRequest}), and the usage's `prompt_tokens` is the body's bytes ÷ 4, as a tokenizer
 * would count about, so a budget settles to a prompt of the turn's size.
 * Prints `READY <port>` when listening.
 */
'use strict';
const { Buffer } = require('node:buffer');
const http = require('node:http');
const { setImmediate } = require('node:timers');
const { AGENT_MESSAGES_UPSTREAM_MODEL, AGENT_UPSTREAM_MODEL, agentResponsesFields } = require('./lib/agent-request');

const MODEL = 'gpt-4o-mini';
const CREATED = 1767225600;
/** Completion tokens of a whole answer. */
const WHOLE_TOKENS = 500;
/**
 * Content pieces of a stream (one token each): in the stream cases 197, with the role, finish and
 * usage chunks 200 events. In the whole cases only the gateway streams (it reads a budgeted whole
 * answer as a stream, to meter it in slices), and it gets the whole answer's tokens.
 */
const STREAM_PIECES = ['chat', 'agent', 'agent-messages', 'agent-responses'].includes(process.env.BENCH_CASE ?? '')
  ? WHOLE_TOKENS
  : 197;

const WORDS = (
  'Switchyard routes each request to the cheapest healthy provider that serves the model, retries the next one ' +
  'when an upstream fails before the first token, prices the answer from the catalog, and records the usage before it answers. '
)
  .split(' ')
  .filter(Boolean);
/** `n` tokens of text, one word each with its trailing space. */
const tokens = (n) => Array.from({ length: n }, (_, i) => `${WORDS[i % WORDS.length]} `);
const usage = (prompt, completion) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0 },
});
const WHOLE_TEXT = tokens(WHOLE_TOKENS).join('').trimEnd();

const chunk = (choices, extra = {}) => ({
  id: 'chatcmpl-bench-1',
  object: 'chat.completion.chunk',
  created: CREATED,
  model: MODEL,
  system_fingerprint: 'fp_bench',
  choices,
  ...extra,
});
const event = (value) => Buffer.from(`data: ${JSON.stringify(value)}\n\n`);
/** The stream's events without the usage chunk, and the usage chunk, each serialised once. */
const STREAM = [
  event(
    chunk([
      { index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null },
    ]),
  ),
  ...tokens(STREAM_PIECES).map((t) =>
    event(chunk([{ index: 0, delta: { content: t }, logprobs: null, finish_reason: null }])),
  ),
  event(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }])),
];
const DONE = Buffer.from('data: [DONE]\n\n');
const WITHOUT_USAGE = [...STREAM, DONE];

/** `build(promptTokens)`, the answers that name the prompt's tokens, built once per count (the last 64 counts kept). */
function perPromptTokens(build) {
  const built = new Map();
  return (promptTokens) => {
    let a = built.get(promptTokens);
    if (a === undefined) {
      if (built.size >= 64) built.clear();
      a = build(promptTokens);
      built.set(promptTokens, a);
    }
    return a;
  };
}

/** The chat answers that name the prompt's tokens: the whole answer, and the stream with the usage chunk. */
const answersFor = perPromptTokens((promptTokens) => ({
  whole: Buffer.from(
    JSON.stringify({
      id: 'chatcmpl-bench-1',
      object: 'chat.completion',
      created: CREATED,
      model: MODEL,
      system_fingerprint: 'fp_bench',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: WHOLE_TEXT, refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: usage(promptTokens, WHOLE_TOKENS),
    }),
  ),
  stream: [...STREAM, event(chunk([], { usage: usage(promptTokens, STREAM_PIECES) })), DONE],
}));

const claudeUsage = (prompt, completion) => ({
  input_tokens: prompt,
  output_tokens: completion,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});
/** A named SSE event (`event: <type>`), as Anthropic's and the Responses streams send them. */
const named = (value) => Buffer.from(`event: ${value.type}\ndata: ${JSON.stringify(value)}\n\n`);

/** The Messages answers (`POST /v1/messages`) naming the prompt's tokens: whole, and the stream's events. */
const messagesAnswersFor = perPromptTokens((promptTokens) => {
  const message = { id: 'msg_bench_1', type: 'message', role: 'assistant', model: AGENT_MESSAGES_UPSTREAM_MODEL };
  return {
    whole: Buffer.from(
      JSON.stringify({
        ...message,
        content: [{ type: 'text', text: WHOLE_TEXT }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: claudeUsage(promptTokens, WHOLE_TOKENS),
      }),
    ),
    // message_start, the text block's start, its pieces and stop, message_delta, message_stop.
    stream: [
      named({
        type: 'message_start',
        message: {
          ...message,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: claudeUsage(promptTokens, 1),
        },
      }),
      named({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      ...tokens(STREAM_PIECES).map((t) =>
        named({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } }),
      ),
      named({ type: 'content_block_stop', index: 0 }),
      named({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: STREAM_PIECES },
      }),
      named({ type: 'message_stop' }),
    ],
  };
});

const responsesUsage = (prompt, completion) => ({
  input_tokens: prompt,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: completion,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: prompt + completion,
});
/** The id of the answer's one output item (at `output_index` 0). */
const ITEM_ID = 'msg_bench_1';
const outputText = (text) => ({ type: 'output_text', text, annotations: [], logprobs: [] });
/** The answer's one output item, an assistant message. */
const outputMessage = (status, content) => ({ id: ITEM_ID, type: 'message', status, role: 'assistant', content });
/** The output item once its text is whole. */
const doneMessage = (text) => outputMessage('completed', [outputText(text)]);
/**
 * A `response` object's members in OpenAI's order (id, object, created_at, status, then the rest by
 * name, `metadata` last), with the bench turn's members it repeats (see the module comment): the
 * template of every response object, of which each sets `status`, `completed_at`, `output` and
 * `usage` (spread over it, so they keep their places).
 */
function responseTemplate() {
  const turn = agentResponsesFields();
  return {
    id: 'resp_bench_1',
    object: 'response',
    created_at: CREATED,
    status: 'in_progress',
    background: false,
    completed_at: null,
    error: null,
    frequency_penalty: null,
    incomplete_details: null,
    instructions: turn.instructions,
    max_output_tokens: turn.max_output_tokens,
    model: AGENT_UPSTREAM_MODEL,
    output: [],
    parallel_tool_calls: turn.parallel_tool_calls,
    presence_penalty: null,
    previous_response_id: null,
    reasoning: null,
    store: turn.store,
    temperature: turn.temperature,
    tool_choice: turn.tool_choice,
    tools: turn.tools,
    top_p: null,
    usage: null,
    user: null,
    metadata: {},
  };
}
/** `fn()`, called once, when first asked. */
function once(fn) {
  let value;
  let done = false;
  return () => {
    if (!done) {
      value = fn();
      done = true;
    }
    return value;
  };
}
const RESPONSE = once(responseTemplate);
/** A `response` object of `status` (completed at CREATED unless in progress). */
const responseObject = (status, output, usage) => ({
  ...RESPONSE(),
  status,
  completed_at: status === 'in_progress' ? null : CREATED,
  output,
  usage,
});
const STREAM_TEXT = tokens(STREAM_PIECES).join('');
/** The Responses stream's events up to response.completed, the same for every prompt, numbered from 0. */
const responsesStream = once(() => {
  const at = { item_id: ITEM_ID, output_index: 0, content_index: 0 };
  const opened = responseObject('in_progress', [], null);
  return [
    { type: 'response.created', response: opened },
    { type: 'response.in_progress', response: opened },
    { type: 'response.output_item.added', output_index: 0, item: outputMessage('in_progress', []) },
    { type: 'response.content_part.added', ...at, part: outputText('') },
    ...tokens(STREAM_PIECES).map((delta) => ({ type: 'response.output_text.delta', ...at, delta, logprobs: [] })),
    { type: 'response.output_text.done', ...at, text: STREAM_TEXT, logprobs: [] },
    { type: 'response.content_part.done', ...at, part: outputText(STREAM_TEXT) },
    {
      type: 'response.output_item.done',
      output_index: 0,
      item: doneMessage(STREAM_TEXT),
    },
  ].map(({ type, ...data }, i) => named({ type, sequence_number: i, ...data }));
});

/** The Responses answers (`POST /v1/responses`) naming the prompt's tokens: whole, and the stream's events. */
const responsesAnswersFor = perPromptTokens((promptTokens) => {
  const opening = responsesStream();
  return {
    whole: Buffer.from(
      JSON.stringify(
        responseObject('completed', [doneMessage(WHOLE_TEXT)], responsesUsage(promptTokens, WHOLE_TOKENS)),
      ),
    ),
    stream: [
      ...opening,
      named({
        type: 'response.completed',
        sequence_number: opening.length,
        response: responseObject('completed', [doneMessage(STREAM_TEXT)], responsesUsage(promptTokens, STREAM_PIECES)),
      }),
    ],
  };
});

/** A body's conversation member (`name`), and the bytes that open it as an array. */
const member = (name) => ({ name, bytes: Buffer.from(`"${name}":[`) });
const MESSAGES = member('messages');
const INPUT = member('input');
const STREAM_TRUE = Buffer.from('"stream":true');
const INCLUDE_USAGE_TRUE = Buffer.from('"include_usage":true');

/**
 * What the answer depends on, read from the body's bytes without parsing it: a JSON object
 * (its first byte `{`), a non-empty `conversation` array (the route's `messages` or `input`),
 * `stream` and `stream_options.include_usage`.
 * The bodies are JSON.stringify's (no blanks between a name and its value), and in JSON a name
 * followed by `:` cannot occur inside a string (its quotes would be escaped), so a match is a
 * member; none of the bench's requests has a nested member named `stream` or `include_usage`, nor
 * one named `input` that holds an array.
 * A 1 MB agent turn costs a few memchr-like scans here, not a parse that would rival the floor's.
 * @param {Buffer} body
 * @param {{ name: string, bytes: Buffer }} conversation
 */
function readRequest(body, conversation) {
  if (body[0] !== 0x7b) return null;
  const m = body.indexOf(conversation.bytes);
  if (m < 0 || body[m + conversation.bytes.length] === 0x5d) return null;
  return {
    stream: body.indexOf(STREAM_TRUE) >= 0,
    includeUsage: body.indexOf(INCLUDE_USAGE_TRUE) >= 0,
    promptTokens: Math.max(1, Math.ceil(body.length / 4)),
  };
}

/** Each route: the end of its path, its conversation's member, and its answers (`{whole, stream}`) to a request. */
const ROUTES = [
  {
    path: '/chat/completions',
    conversation: MESSAGES,
    answers: (r) => (r.stream && !r.includeUsage ? { stream: WITHOUT_USAGE } : answersFor(r.promptTokens)),
  },
  { path: '/v1/messages', conversation: MESSAGES, answers: (r) => messagesAnswersFor(r.promptTokens) },
  { path: '/v1/responses', conversation: INPUT, answers: (r) => responsesAnswersFor(r.promptTokens) },
];

/** Write `events` one per turn of the event loop, stopping if the client leaves. */
function writeEvents(res, events) {
  let i = 0;
  const next = () => {
    if (res.destroyed) return;
    if (i === events.length - 1) return void res.end(events[i]);
    res.write(events[i++]);
    setImmediate(next);
  };
  next();
}

function fail(res, status, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message } }));
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const route = ROUTES.find((r) => req.url.endsWith(r.path));
    if (req.method !== 'POST' || route === undefined) return fail(res, 404, 'not found');
    const request = readRequest(Buffer.concat(chunks), route.conversation);
    if (request === null) return fail(res, 400, `a JSON object with ${route.conversation.name} required`);
    const answer = route.answers(request);
    if (!request.stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.whole.length });
      return void res.end(answer.whole);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    writeEvents(res, answer.stream);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
