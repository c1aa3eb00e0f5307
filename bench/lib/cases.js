/**
 * The benchmarks' cases, by BENCH_CASE: the fake upstream and the floor that serve each, the API
 * route, the client's body and the same request as the gateway sends it upstream (for the direct
 * and proxy targets), and settings the bench's gateway needs for the case. One table for
 * `bench:chat`, `bench:ab`, `bench:ladder` and `bench:profile`, so a case means the same exchange
 * in each.
 */
'use strict';
const { Buffer } = require('node:buffer');
const path = require('node:path');
const { readFileSync } = require('node:fs');
const { parse: parseYaml } = require('yaml');
const { BATCH, GATEWAY_BODY } = require('./gateway');
const { CHAT_ROUTE, chatGatewayBody, chatUpstreamBody } = require('./chat-request');
const {
  AGENT_DEFAULT_KB,
  AGENT_KB,
  agentGatewayBody,
  agentMessagesBody,
  agentResponsesBody,
  agentUpstreamBody,
} = require('./agent-request');

/** The gateway's JSON body limit as this checkout ships it (`server.bodyLimitBytes`). */
const defaultBodyLimit = () =>
  parseYaml(readFileSync(path.join(__dirname, '..', '..', 'config', 'default.yaml'), 'utf8')).server.bodyLimitBytes;

/**
 * The bench gateway's configuration for a body: none while the shipped body limit admits it;
 * else that limit raised to twice the body (a benchmark setting, not the product's default, which
 * is #60's item 5), so a turn larger than 1 MB (BENCH_AGENT_KB above 1024) is measured, not refused.
 * @param {string} body
 */
function configFor(body) {
  const size = Buffer.byteLength(body);
  return size <= defaultBodyLimit() ? {} : { server: { bodyLimitBytes: 2 * size } };
}

/**
 * Each wire format's route and upstream path (for the direct and proxy targets): `chat` (OpenAI's
 * chat completions), `messages` (Anthropic's), `responses` (OpenAI's Responses, which the gateway's
 * door sends upstream as chat completions and the floor forwards as it is).
 */
const FORMATS = {
  chat: { route: CHAT_ROUTE, upstreamPath: '/v1/chat/completions' },
  messages: { route: '/messages', upstreamPath: '/v1/messages' },
  responses: { route: '/responses', upstreamPath: '/v1/responses' },
};

const chatLike = (name, stream, body, upstreamBody, format = 'chat') => ({
  name,
  stream,
  /** The wire format of the route and the upstream (a key of FORMATS). */
  format,
  upstream: 'chat-upstream.js',
  floor: 'chat-floor.js',
  ...FORMATS[format],
  body,
  upstreamBody,
  config: configFor(body),
});
const chatCase = (stream) =>
  chatLike(stream ? 'chat-stream' : 'chat', stream, chatGatewayBody(stream), chatUpstreamBody(stream));
/** A coding agent's turn of BENCH_AGENT_KB (bench/lib/agent-request.js); `kb` is in the case for labels. */
const agentCase = (stream) => ({
  ...chatLike(stream ? 'agent-stream' : 'agent', stream, agentGatewayBody(stream), agentUpstreamBody(stream)),
  kb: AGENT_KB,
});

/** The agent turn through another door: `bodyOf(stream, upstream)` the client's body or the upstream's, in `format`. */
const agentDoorCase = (name, format, bodyOf, stream) => ({
  ...chatLike(stream ? `${name}-stream` : name, stream, bodyOf(stream, false), bodyOf(stream, true), format),
  kb: AGENT_KB,
});

const CASES = {
  /** POST /embeddings: one input, or BENCH_BATCH inputs. */
  embeddings: () => ({
    name: BATCH ? `batch of ${BATCH}` : 'single',
    stream: false,
    upstream: 'upstream.js',
    floor: 'floor.js',
    route: '/embeddings',
    body: GATEWAY_BODY,
    config: {},
  }),
  chat: () => chatCase(false),
  'chat-stream': () => chatCase(true),
  agent: () => agentCase(false),
  'agent-stream': () => agentCase(true),
  /** The same turn through the Messages door to an Anthropic-format upstream (bench/lib/agent-request.js). */
  'agent-messages': () => agentDoorCase('agent-messages', 'messages', agentMessagesBody, false),
  'agent-messages-stream': () => agentDoorCase('agent-messages', 'messages', agentMessagesBody, true),
  /** The same turn through the Responses door (Codex's shape); the gateway's door answers from chat completions. */
  'agent-responses': () => agentDoorCase('agent-responses', 'responses', agentResponsesBody, false),
  'agent-responses-stream': () => agentDoorCase('agent-responses', 'responses', agentResponsesBody, true),
};

/**
 * The case named `name` (`embeddings` when unset), one of `allowed`, as `{name, stream, upstream,
 * floor, route, body, upstreamBody, config}`: `upstream` and `floor` are scripts in bench/,
 * `upstreamBody` the request as the gateway sends it upstream (chat-like cases), `config` what to
 * lay over the bench gateway's configuration (startBenchGateway's `config`); agent cases add `kb`.
 * @param {string | undefined} name
 * @param {string[]} [allowed]
 */
function benchCase(name = 'embeddings', allowed = Object.keys(CASES)) {
  if (!allowed.includes(name)) throw new Error(`BENCH_CASE must be ${allowed.join(', ')}, not ${name}`);
  return CASES[name]();
}

/** The results file's suffix for a case: its name, and an agent turn's size when not the default. */
const caseLabel = (c) => (c.kb !== undefined && c.kb !== AGENT_DEFAULT_KB ? `${c.name}-${c.kb}kb` : c.name);

module.exports = { benchCase, caseLabel, configFor };
