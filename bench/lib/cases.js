/**
 * The benchmarks' cases, by BENCH_CASE: the fake upstream and the floor that serve each, the API
 * route and the client's body. One table for `bench:ab`, `bench:ladder` and `bench:profile`, so a
 * case means the same exchange in each (`bench:chat` builds its targets from chat-request.js).
 */
'use strict';
const { BATCH, GATEWAY_BODY } = require('./gateway');
const { CHAT_ROUTE, chatGatewayBody } = require('./chat-request');

const chatCase = (stream) => ({ name: stream ? 'chat-stream' : 'chat', upstream: 'chat-upstream.js', floor: 'chat-floor.js', route: CHAT_ROUTE, body: chatGatewayBody(stream) });

const CASES = {
  /** POST /embeddings: one input, or BENCH_BATCH inputs. */
  embeddings: () => ({ name: BATCH ? `batch of ${BATCH}` : 'single', upstream: 'upstream.js', floor: 'floor.js', route: '/embeddings', body: GATEWAY_BODY }),
  chat: () => chatCase(false),
  'chat-stream': () => chatCase(true),
};

/**
 * The case named `name` (`embeddings` when unset), one of `allowed`, as `{name, upstream, floor,
 * route, body}`: `upstream` and `floor` are scripts in bench/.
 * @param {string | undefined} name
 * @param {string[]} [allowed]
 */
function benchCase(name = 'embeddings', allowed = Object.keys(CASES)) {
  if (!allowed.includes(name)) throw new Error(`BENCH_CASE must be ${allowed.join(', ')}, not ${name}`);
  return CASES[name]();
}

module.exports = { benchCase };
