/**
 * Benchmark fake upstream: an OpenAI-compatible `POST /v1/embeddings` on 127.0.0.1 answering
 * one 1536-float embedding per input with usage, from a body serialised once at start so the
 * upstream itself costs as little as possible. Prints `READY <port>` when listening.
 */
'use strict';
const { Buffer } = require('node:buffer');
const http = require('node:http');

const DIMENSIONS = 1536;
let seed = 42;
function random() {
  // Deterministic floats with realistic digits (like OpenAI's), not short constants.
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return (seed / 2147483648) * 0.2 - 0.1;
}
const embedding = Array.from({ length: DIMENSIONS }, random);
function body(count) {
  return Buffer.from(
    JSON.stringify({
      object: 'list',
      data: Array.from({ length: count }, (_, index) => ({ object: 'embedding', index, embedding })),
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: 9 * count, total_tokens: 9 * count },
    }),
  );
}
const ONE = body(1);
/** Batch answers by size, serialised once each (a 64-input answer is about 1.2 MB). */
const BATCHES = new Map();
function batchBody(count) {
  if (!BATCHES.has(count)) BATCHES.set(count, body(count));
  return BATCHES.get(count);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.method !== 'POST' || !req.url.endsWith('/embeddings')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"not found"}}');
      return;
    }
    let out = ONE;
    try {
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')).input;
      if (Array.isArray(input) && input.length > 1 && typeof input[0] !== 'number') out = batchBody(input.length);
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"bad json"}}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': out.length });
    res.end(out);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
