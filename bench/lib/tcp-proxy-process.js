/**
 * testkit/tcp-proxy.js in a process of its own, for the fault run. In the benchmark's process
 * the proxies shared one event loop with the load generator, which at 1,000 requests/s on a slow
 * machine could not keep up: Redis's replies then waited behind the client's own work, the
 * gateway's commands timed out (500 ms) and budgeted requests failed with 503 while every service
 * was up. Here the proxies' forwarding waits for nothing but the sockets. Forked by
 * {@link tcpProxyProcess}; the child ends when its parent disconnects.
 */
'use strict';
const path = require('node:path');
const { fork } = require('node:child_process');
const { tcpProxy } = require('../../testkit/tcp-proxy');

/**
 * A switchable proxy to `targetHost:targetPort`, initially closed, run in a child process; same
 * `port`, `open()` and `close()` as tcpProxy, plus `end()` to stop the process.
 * @param {string} targetHost
 * @param {number} targetPort
 */
async function tcpProxyProcess(targetHost, targetPort) {
  const child = fork(path.join(__dirname, 'tcp-proxy-process.js'), [targetHost, String(targetPort)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map();
  let next = 0;
  child.on('message', (msg) => {
    const done = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (done) done(msg);
  });
  child.on('exit', () => {
    for (const done of waiting.values()) done({ error: 'tcp proxy process exited' });
    waiting.clear();
  });
  const ask = (op) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, (msg) => (msg.error ? reject(new Error(msg.error)) : resolve(msg)));
      child.send({ id, op });
    });
  const { port } = await ask('port');
  return {
    port,
    open: async () => void (await ask('open')),
    close: async () => void (await ask('close')),
    end: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}

if (require.main === module) {
  const proxied = tcpProxy(process.argv[2], Number(process.argv[3]));
  process.on('message', async ({ id, op }) => {
    try {
      const proxy = await proxied;
      if (op === 'open') await proxy.open();
      if (op === 'close') await proxy.close();
      process.send({ id, port: proxy.port });
    } catch (err) {
      process.send({ id, error: err.message });
    }
  });
  process.on('disconnect', () => process.exit(0));
}

module.exports = { tcpProxyProcess };
