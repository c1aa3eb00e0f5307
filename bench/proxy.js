/**
 * Benchmark baseline: the smallest reasonable reverse proxy in plain node:http (keep-alive
 * agent, request and response piped, no parsing), i.e. what any gateway costs at minimum.
 * Forwards everything to UPSTREAM (e.g. http://127.0.0.1:9000). Prints `READY <port>`.
 *
 * The answer goes through `pipeline`, which destroys the upstream response when the client goes
 * away mid-answer (a load run that ends while streams are in flight): a plain `pipe` would leave
 * it paused, its socket held out of the agent for good, until 256 of them hung the proxy.
 */
'use strict';
const { URL } = require('node:url');
const http = require('node:http');
const { pipeline } = require('node:stream');

const upstream = new URL(process.env.UPSTREAM);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const server = http.createServer((req, res) => {
  const headers = { ...req.headers, host: upstream.host };
  const out = http.request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent },
    (up) => {
      res.writeHead(up.statusCode || 502, up.headers);
      pipeline(up, res, () => undefined);
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
