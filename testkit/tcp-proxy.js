/**
 * A TCP proxy in front of a real service that can be switched off and on, to make the service
 * unreachable (nothing listens on the proxy's port, every forwarded connection is cut) and bring
 * it back, without touching the shared service or starting processes. Used by the fault run
 * (bench/faults.js, in a process of its own) and by the fault tests (test/integration/). Plain
 * JavaScript so the benchmark runs it without a build.
 */
'use strict';
const { readFileSync } = require('node:fs');
const net = require('node:net');

/**
 * Listen on `port` of 127.0.0.1 (0: any the kernel picks) and release it at once.
 * @param {number} port
 * @returns {Promise<number | null>} the port that was bound, or null when it was taken
 */
async function probePort(port) {
  const probe = net.createServer();
  const bound = await new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (!bound) return null;
  const actual = probe.address().port;
  await new Promise((resolve) => probe.close(() => resolve()));
  return actual;
}

/** The lowest port the kernel hands out for `listen(0)` (Linux), or null where unknown. */
function ephemeralLow() {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 11_000 ? low : null;
  } catch {
    return null;
  }
}

/**
 * A loopback port that stays free while the proxy is closed: chosen below the kernel's
 * ephemeral range, which `listen(0)` never hands out, so no other server of a parallel run can
 * take it between a close and the next open. (A port found with `listen(0)` and released can be
 * given to the next server that asks, and `open()` then fails.)
 */
async function stablePort() {
  const low = ephemeralLow();
  if (low !== null) {
    for (let tries = 0; tries < 50; tries++) {
      const port = await probePort(10_000 + Math.floor(Math.random() * (low - 10_000)));
      if (port !== null) return port;
    }
  }
  return /** @type {number} */ (await probePort(0));
}

/**
 * A proxy on a fixed loopback port to `targetHost:targetPort`, initially closed.
 * @param {string} targetHost
 * @param {number} targetPort
 */
async function tcpProxy(targetHost, targetPort) {
  const port = await stablePort();
  const sockets = new Set();
  let server;
  let paused = false;
  const track = (s) => {
    sockets.add(s);
    if (paused) s.pause();
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  return {
    port,
    async open() {
      if (server) return;
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, targetHost);
        // As real proxies do (pgbouncer, HAProxy, Envoy): without it, Nagle's algorithm holds a
        // reply's second packet (Postgres answers a COPY with two) until the peer's delayed ACK,
        // 40 ms later, and every COPY through the proxy took 44 ms.
        client.setNoDelay(true);
        upstream.setNoDelay(true);
        track(client);
        track(upstream);
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      const s = server;
      await new Promise((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => resolve());
      });
    },
    /**
     * Stall every connection, open and new, without closing any: bytes stay unread in the
     * kernel, as with a hung service or a network path that drops packets.
     */
    pause() {
      paused = true;
      for (const socket of sockets) socket.pause();
    },
    /** Forward again what {@link pause} held, and everything after it. */
    resume() {
      paused = false;
      for (const socket of sockets) socket.resume();
    },
    async close() {
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (s) await new Promise((resolve) => s.close(() => resolve()));
    },
  };
}

module.exports = { tcpProxy };
