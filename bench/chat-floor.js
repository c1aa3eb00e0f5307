/**
 * The chat benchmark's featureless Express floor (bench/floor.js's, for `POST /chat/completions`,
 * `POST /messages` for the agent turn through the Messages door, to Anthropic's `/v1/messages`,
 * and `POST /responses` for the turn through the Responses door, to OpenAI's `/v1/responses`):
 * Express 5 with `express.json`, one undici POST upstream with the client's request, and the
 * upstream's bytes sent back, on the checkout's own express and undici. The upstream body is a new
 * one, as a gateway's is: the provider's model name (the client's without its `vendor/` prefix),
 * the members the bench's requests carry (FORWARDED: the small chat request's messages and
 * max_tokens, and an agent turn's tools, tool_choice, parallel_tool_calls and temperature too),
 * and for a stream the request for usage; so the floor parses and serialises what the gateway
 * must, and no more. A whole answer is read
 * whole before it is sent on, as a gateway that must look at an answer reads it. A stream is
 * piped through as it arrives, each upstream read written to the client at once, as a gateway
 * must to add nothing to the time to first token. Forwards to UPSTREAM; prints `READY <port>`.
 */
'use strict';
const express = require('express');
const { Buffer } = require('node:buffer');
const { pipeline } = require('node:stream/promises');
const { Pool } = require('undici');
const { AGENT_MESSAGES_MODEL, AGENT_MESSAGES_UPSTREAM_MODEL } = require('./lib/agent-request');

/** The members of the client's body sent upstream as they came, when present. */
const FORWARDED = ['messages', 'tools', 'tool_choice', 'parallel_tool_calls', 'temperature', 'max_tokens'];

/** The members of a Messages body sent upstream as they came (the Messages door's bench turn, bench/lib/agent-request.js). */
const FORWARDED_MESSAGES = ['max_tokens', 'system', 'tools', 'tool_choice', 'temperature', 'messages'];

/** The members of a Responses body sent upstream as they came (the Responses door's bench turn, Codex's shape). */
const FORWARDED_RESPONSES = [
  'instructions',
  'input',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'temperature',
  'max_output_tokens',
  'store',
];

const OPENAI_HEADERS = { 'content-type': 'application/json', authorization: 'Bearer sk-bench-upstream' };

const pool = new Pool(process.env.UPSTREAM, { connections: 64, keepAliveTimeout: 60_000 });
const app = express();
// Above the largest agent turn the bench sends by default (1 MB).
app.use(express.json({ limit: '10mb' }));

/** A new upstream body: `model`, and the `names` of the client's body that it has, as they came. */
function forwarded(model, client, names) {
  const body = { model };
  for (const name of names) if (client[name] !== undefined) body[name] = client[name];
  return body;
}

/** The provider's model name of an OpenAI-format body: the client's without its `vendor/` prefix. */
function providerModel(client) {
  const model = String(client.model);
  return model.slice(model.indexOf('/') + 1);
}

/** The upstream request of a chat body: the provider's model name, the forwarded members, usage asked for a stream. */
function chatUpstream(client, stream) {
  const body = forwarded(providerModel(client), client, FORWARDED);
  if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
  return { path: '/v1/chat/completions', headers: OPENAI_HEADERS, body };
}

/** The upstream request of a Messages body, as the gateway's Anthropic adapter sends one. */
function messagesUpstream(client, stream) {
  // Anthropic's name for the bench's Messages model, as the gateway's catalog maps it.
  const model = client.model === AGENT_MESSAGES_MODEL ? AGENT_MESSAGES_UPSTREAM_MODEL : String(client.model);
  const body = forwarded(model, client, FORWARDED_MESSAGES);
  if (stream) body.stream = true;
  const headers = {
    'content-type': 'application/json',
    'x-api-key': 'sk-bench-upstream',
    'anthropic-version': '2023-06-01',
  };
  return { path: '/v1/messages', headers, body };
}

/** The upstream request of a Responses body, to OpenAI's `/v1/responses` (which the gateway's door does not call). */
function responsesUpstream(client, stream) {
  const body = forwarded(providerModel(client), client, FORWARDED_RESPONSES);
  if (stream) body.stream = true;
  return { path: '/v1/responses', headers: OPENAI_HEADERS, body };
}

/** The route that sends a client's body on as `upstream(body, stream)` makes it, and the answer back. */
const forwarding = (upstream) =>
  async function floor(req, res) {
    const stream = req.body.stream === true;
    const to = upstream(req.body, stream);
    const up = await pool.request({
      method: 'POST',
      path: to.path,
      headers: to.headers,
      body: JSON.stringify(to.body),
    });
    if (!stream) {
      const bytes = Buffer.from(await up.body.arrayBuffer());
      return void res.status(up.statusCode).set('content-type', 'application/json').end(bytes);
    }
    res.writeHead(up.statusCode, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.once('close', () => up.body.destroy());
    await pipeline(up.body, res).catch(() => undefined);
  };
app.post('/api/v1/chat/completions', forwarding(chatUpstream));
app.post('/api/v1/messages', forwarding(messagesUpstream));
app.post('/api/v1/responses', forwarding(responsesUpstream));
const server = app.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${server.address().port}\n`);
});
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
