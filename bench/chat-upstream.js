/**
 * The chat benchmark's fake upstream: OpenAI-compatible `POST /v1/chat/completions` on 127.0.0.1,
 * answering from bytes built once at start so the upstream itself costs as little as possible.
 * - Whole answers: one choice of about 500 completion tokens (about 2.6 kB of text), with usage.
 * - `stream: true`: 200 SSE events (the role, 197 content pieces, the finish reason, and with
 *   `stream_options.include_usage` the usage chunk with empty choices, as OpenAI sends it; without
 *   it the usage chunk is left out), then `data: [DONE]`. Each event is its own write, on its own
 *   turn of the event loop, so a reader sees the events arrive one by one as a model's tokens do,
 *   not as one block.
 * Prints `READY <port>` when listening.
 */
'use strict';
const { Buffer } = require('node:buffer');
const http = require('node:http');
const { setImmediate } = require('node:timers');

const MODEL = 'gpt-4o-mini';
const CREATED = 1767225600;
const PROMPT_TOKENS = 24;
/** Completion tokens of a whole answer. */
const WHOLE_TOKENS = 500;
/** Content pieces of a stream (one token each); with the role, finish and usage chunks, 200 events. */
const STREAM_PIECES = 197;

const WORDS = ('Switchyard routes each request to the cheapest healthy provider that serves the model, retries the next one ' +
  'when an upstream fails before the first token, prices the answer from the catalog, and records the usage before it answers. ').split(' ').filter(Boolean);
/** `n` tokens of text, one word each with its trailing space. */
const tokens = (n) => Array.from({ length: n }, (_, i) => `${WORDS[i % WORDS.length]} `);
const usage = (completion) => ({ prompt_tokens: PROMPT_TOKENS, completion_tokens: completion, total_tokens: PROMPT_TOKENS + completion, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } });

const WHOLE = Buffer.from(JSON.stringify({
  id: 'chatcmpl-bench-1',
  object: 'chat.completion',
  created: CREATED,
  model: MODEL,
  system_fingerprint: 'fp_bench',
  choices: [{ index: 0, message: { role: 'assistant', content: tokens(WHOLE_TOKENS).join('').trimEnd(), refusal: null }, logprobs: null, finish_reason: 'stop' }],
  usage: usage(WHOLE_TOKENS),
}));

const chunk = (choices, extra = {}) => ({ id: 'chatcmpl-bench-1', object: 'chat.completion.chunk', created: CREATED, model: MODEL, system_fingerprint: 'fp_bench', choices, ...extra });
const event = (value) => Buffer.from(`data: ${JSON.stringify(value)}\n\n`);
/** The stream's events without the usage chunk, and the usage chunk, each serialised once. */
const STREAM = [
  event(chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }])),
  ...tokens(STREAM_PIECES).map((t) => event(chunk([{ index: 0, delta: { content: t }, logprobs: null, finish_reason: null }]))),
  event(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }])),
];
const USAGE_EVENT = event(chunk([], { usage: usage(STREAM_PIECES) }));
const DONE = Buffer.from('data: [DONE]\n\n');
const WITH_USAGE = [...STREAM, USAGE_EVENT, DONE];
const WITHOUT_USAGE = [...STREAM, DONE];

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
    if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) return fail(res, 404, 'not found');
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return fail(res, 400, 'bad json');
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) return fail(res, 400, 'messages required');
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': WHOLE.length });
      return void res.end(WHOLE);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    writeEvents(res, body.stream_options?.include_usage === true ? WITH_USAGE : WITHOUT_USAGE);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

