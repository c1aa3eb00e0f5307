/**
 * Benchmark reference (`BENCH_VALIDATING_FLOOR=1`): the cheapest gateway that still does what the spec
 * makes every embeddings response need — the client's JSON read, a new upstream request, the
 * upstream's vectors checked number by number (a malformed body must become a 502, never a
 * broken answer) and a new body around them — with the gateway's own code for the last three
 * (the OpenAI adapter, its upstream client `UpstreamHttp` and `dist/src/embeddings/response.js`,
 * written as the gateway writes it: corked chunks) and nothing else: no authentication, limits,
 * budgets, usage, metrics or log. A batch request's inputs are sent on as they came. The gap
 * between it and the proxy is the price of validating; the gap between it and the gateway is
 * the features'. Forwards to UPSTREAM; prints `READY <port>`.
 * Expects a build (`npm run bench` makes one).
 */
'use strict';
const { Buffer } = require('node:buffer');
const http = require('node:http');
const { UpstreamHttp } = require('../dist/src/providers/http');
const { openaiAdapter } = require('../dist/src/providers/openai');
const { embeddingsResponseBody } = require('../dist/src/embeddings/response');

/** The one endpoint it serves, with what the adapter reads of a catalog endpoint. */
const endpoint = {
  upstreamModel: 'text-embedding-3-small',
  parameters: new Set(),
  provider: {
    baseUrl: `${process.env.UPSTREAM.replace(/\/$/, '')}/v1`,
    apiKey: 'sk-bench-upstream',
    base64Passthrough: false,
  },
};
const upstream = new UpstreamHttp({ connectionsPerOrigin: 64, keepAliveTimeoutMs: 60_000 });
let served = 0;

function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
  res.cork();
  for (const chunk of body.chunks) res.write(chunk);
  res.end();
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
    const texts = Array.isArray(input) ? input : [input];
    const job = {
      input: { kind: 'text', texts },
      dimensions: undefined,
      inputType: undefined,
      user: undefined,
      encoding: 'float',
    };
    void upstream.post(openaiAdapter.buildRequest(job, endpoint), openaiAdapter, 30_000).then((result) => {
      const parsed = result.outcome === 'ok' ? openaiAdapter.parseResponse(result.body, job) : null;
      if (!parsed || parsed.vectors.length !== texts.length || parsed.promptTokens === null)
        return fail(res, 502, 'invalid upstream answer');
      served += 1;
      reply(
        res,
        200,
        embeddingsResponseBody({
          id: `gen-emb-${served}`,
          model: 'openai/text-embedding-3-small',
          providerName: 'OpenAI',
          vectors: parsed.vectors,
          encoding: 'float',
          promptTokens: parsed.promptTokens,
          cost: parsed.promptTokens * 2e-8,
        }),
      );
    });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
