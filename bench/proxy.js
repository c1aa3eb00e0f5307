/**
 * Benchmark baseline: the smallest reasonable reverse proxy in plain node:http (keep-alive
 * agent, request and response piped, no parsing), i.e. what any gateway costs at minimum.
 * Forwards everything to UPSTREAM (e.g. http://127.0.0.1:9000). Prints `READY <port>`.
 */
'use strict';
const { URL } = require('node:url');
const http = require('node:http');

const upstream = new URL(process.env.UPSTREAM);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const server = http.createServer((req, res) => {
  const headers = { ...req.headers, host: upstream.host };
  const out = http.request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent },
    (up) => {
      res.writeHead(up.statusCode || 502, up.headers);
      up.pipe(res);
    },
  );
  out.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(out);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
