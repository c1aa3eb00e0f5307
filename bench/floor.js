/**
 * Benchmark reference, in every run: the featureless Express floor. Express 5 with
 * `express.json`, one undici POST upstream with the client's input, and the upstream's bytes sent
 * back, on the checkout's own express and undici. Any gateway on this framework pays at least
 * this, so the gateway is judged as a share of it. The upstream's body is read whole before it is
 * sent on, as a gateway that must look at an answer before answering reads it (the gateway checks
 * every vector and writes the usage record first). Forwards to UPSTREAM; prints `READY <port>`.
 */
'use strict';
const express = require('express');
const { Buffer } = require('node:buffer');
const { Pool } = require('undici');

const pool = new Pool(process.env.UPSTREAM, { connections: 64, keepAliveTimeout: 60_000 });
const app = express();
app.use(express.json({ limit: '10mb' }));
app.post('/api/v1/embeddings', async function floor(req, res) {
  const up = await pool.request({
    method: 'POST',
    path: '/v1/embeddings',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench-upstream' },
    body: JSON.stringify({ model: 'text-embedding-3-small', input: req.body.input, encoding_format: 'float' }),
  });
  const bytes = Buffer.from(await up.body.arrayBuffer());
  res.status(up.statusCode).set('content-type', 'application/json').end(bytes);
});
const server = app.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${server.address().port}\n`);
});
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
