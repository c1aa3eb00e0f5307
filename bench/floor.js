/**
 * Benchmark reference (`BENCH_FLOOR=1`): the cheapest gateway that still does what the spec makes
 * every embeddings response need — the client's JSON read, a new upstream request, the upstream's
 * vectors checked number by number (a malformed body must become a 502, never a broken answer)
 * and a new body around them — with the gateway's own code for the last two
 * (`dist/src/providers/raw-json.js`, `dist/src/embeddings/response.js`), undici upstream and
 * nothing else: no authentication, limits, budgets, usage, metrics or log. The gap between it and
 * the proxy is the price of validating; the gap between it and the gateway is the features'.
 * Forwards to UPSTREAM; prints `READY <port>`. Expects a build (`npm run bench` makes one).
 */
'use strict';
const { Buffer } = require('node:buffer');
const http = require('node:http');
const { URL } = require('node:url');
const { Agent } = require('undici');
const { parseLiftingArrays } = require('../dist/src/providers/raw-json');
const { embeddingsResponseBody } = require('../dist/src/embeddings/response');

const upstream = new URL(process.env.UPSTREAM);
const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000, pipelining: 1 });
const upstreamHeaders = { 'content-type': 'application/json', authorization: 'Bearer sk-bench-upstream' };
let served = 0;

function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
  res.cork();
  for (const chunk of body.chunks) res.write(chunk);
  res.end();
  res.uncork();
}

function fail(res, status, message) {
  const body = Buffer.from(JSON.stringify({ error: { code: status, message } }));
  reply(res, status, { chunks: [body], length: body.length });
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let input;
    try {
      input = JSON.parse(Buffer.concat(chunks).toString('utf8')).input;
    } catch {
      fail(res, 400, 'bad json');
      return;
    }
    const parts = [];
    let size = 0;
    const body = JSON.stringify({ model: 'text-embedding-3-small', input, encoding_format: 'float' });
    agent.dispatch({ origin: upstream.origin, path: `${upstream.pathname.replace(/\/$/, '')}/v1/embeddings`, method: 'POST', headers: upstreamHeaders, body }, {
      onRequestStart() {},
      onResponseStart() {},
      onResponseData(_c, chunk) {
        parts.push(chunk);
        size += chunk.length;
      },
      onResponseEnd() {
        const parsed = parseLiftingArrays(parts.length === 1 ? parts[0] : Buffer.concat(parts, size), 'embedding');
        const tokens = parsed?.body?.usage?.prompt_tokens;
        if (!parsed || parsed.raws.length !== 1 || typeof tokens !== 'number') return fail(res, 502, 'invalid upstream body');
        served += 1;
        reply(res, 200, embeddingsResponseBody({
          id: `gen-emb-${served}`,
          model: 'openai/text-embedding-3-small',
          providerName: 'OpenAI',
          vectors: parsed.raws,
          encoding: 'float',
          promptTokens: tokens,
          cost: tokens * 2e-8,
        }));
      },
      onResponseError() {
        fail(res, 502, 'upstream unreachable');
      },
    });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
