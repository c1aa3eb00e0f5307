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
const { AGENT_MESSAGES_UPSTREAM_MODEL } = require('./lib/agent-request');

const MODEL = 'gpt-4o-mini';
const CREATED = 1767225600;
/** Completion tokens of a whole answer. */
const WHOLE_TOKENS = 500;
/**
 * Content pieces of a stream (one token each): in the stream cases 197, with the role, finish and
 * usage chunks 200 events. In the whole cases only the gateway streams (it reads a budgeted whole
 * answer as a stream, to meter it in slices), and it gets the whole answer's tokens.
 */
const STREAM_PIECES = ['chat', 'agent', 'agent-messages'].includes(process.env.BENCH_CASE ?? '') ? WHOLE_TOKENS : 197;

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

/** The answers that name the prompt's tokens (the whole answer, the stream with usage), built once per count. */
const answers = new Map();
function answersFor(promptTokens) {
  let a = answers.get(promptTokens);
  if (a !== undefined) return a;
  if (answers.size >= 64) answers.clear();
  a = {
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
    withUsage: [...STREAM, event(chunk([], { usage: usage(promptTokens, STREAM_PIECES) })), DONE],
  };
  answers.set(promptTokens, a);
  return a;
}

const claudeUsage = (prompt, completion) => ({
  input_tokens: prompt,
  output_tokens: completion,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});
/** A named SSE event of Anthropic's stream. */
const named = (value) => Buffer.from(`event: ${value.type}\ndata: ${JSON.stringify(value)}\n\n`);

/** The Messages answers (`POST /v1/messages`) naming the prompt's tokens, built once per count: whole, and the stream's events. */
const messagesAnswers = new Map();
function messagesAnswersFor(promptTokens) {
  let a = messagesAnswers.get(promptTokens);
  if (a !== undefined) return a;
  if (messagesAnswers.size >= 64) messagesAnswers.clear();
  const message = { id: 'msg_bench_1', type: 'message', role: 'assistant', model: AGENT_MESSAGES_UPSTREAM_MODEL };
  a = {
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
  messagesAnswers.set(promptTokens, a);
  return a;
}

const MESSAGES = Buffer.from('"messages":[');
const STREAM_TRUE = Buffer.from('"stream":true');
const INCLUDE_USAGE_TRUE = Buffer.from('"include_usage":true');

/**
 * What the answer depends on, read from the body's bytes without parsing it: a JSON object
 * (its first byte `{`), a non-empty `messages` array, `stream` and `stream_options.include_usage`.
 * The bodies are JSON.stringify's (no blanks between a name and its value), and in JSON a name
 * followed by `:` cannot occur inside a string (its quotes would be escaped), so a match is a
 * member; none of the bench's requests has a nested member named `stream` or `include_usage`.
 * A 1 MB agent turn costs a few memchr-like scans here, not a parse that would rival the floor's.
 * @param {Buffer} body
 */
function readRequest(body) {
  if (body[0] !== 0x7b) return null;
  const m = body.indexOf(MESSAGES);
  if (m < 0 || body[m + MESSAGES.length] === 0x5d) return null;
  return {
    stream: body.indexOf(STREAM_TRUE) >= 0,
    includeUsage: body.indexOf(INCLUDE_USAGE_TRUE) >= 0,
    promptTokens: Math.max(1, Math.ceil(body.length / 4)),
  };
}

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
    const messages = req.url.endsWith('/v1/messages');
    if (req.method !== 'POST' || !(messages || req.url.endsWith('/chat/completions')))
      return fail(res, 404, 'not found');
    const request = readRequest(Buffer.concat(chunks));
    if (request === null) return fail(res, 400, 'a JSON object with messages required');
    if (messages) {
      const answer = messagesAnswersFor(request.promptTokens);
      if (!request.stream) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.whole.length });
        return void res.end(answer.whole);
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      return writeEvents(res, answer.stream);
    }
    if (!request.stream) {
      const { whole } = answersFor(request.promptTokens);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': whole.length });
      return void res.end(whole);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    writeEvents(res, request.includeUsage ? answersFor(request.promptTokens).withUsage : WITHOUT_USAGE);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
