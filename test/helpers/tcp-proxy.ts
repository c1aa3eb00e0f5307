/**
 * A TCP proxy in front of a real service that tests switch on and off, to simulate the
 * service being unreachable (nothing listens on the proxy's port) and coming back, without
 * touching the shared service itself or starting processes.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** A switchable proxy on a fixed loopback port. */
export interface TcpProxy {
  port: number;
  /** Start accepting and forwarding connections. */
  open(): Promise<void>;
  /** Stop listening and cut every forwarded connection. */
  close(): Promise<void>;
}

/**
 * Listen on `port` of 127.0.0.1 (0: any the kernel picks) and release it at once; the port that
 * was bound, or null when it was taken.
 */
async function probePort(port: number): Promise<number | null> {
  const probe = net.createServer();
  const bound = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (!bound) return null;
  const actual = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return actual;
}

/** The lowest port the kernel hands out for `listen(0)` (Linux), or null where unknown. */
function ephemeralLow(): number | null {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 11_000 ? low : null;
  } catch {
    return null;
  }
}

/**
 * A loopback port for the proxy that stays free while the proxy is closed: chosen below the
 * kernel's ephemeral range, which `listen(0)` never hands out, so no other server of a parallel
 * test run can take it between a close and the next open. (A port found with `listen(0)` and
 * released can be given to the next server that asks, and `open()` then fails.)
 */
async function stablePort(): Promise<number> {
  const low = ephemeralLow();
  if (low !== null) {
    for (let tries = 0; tries < 50; tries++) {
      const port = await probePort(10_000 + Math.floor(Math.random() * (low - 10_000)));
      if (port !== null) return port;
    }
  }
  return (await probePort(0)) as number;
}

/** A proxy to `targetHost:targetPort`, initially closed. */
export async function tcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const port = await stablePort();
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  return {
    port,
    async open() {
      if (server) return;
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, targetHost);
        track(client);
        track(upstream);
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      const s = server;
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => resolve());
      });
    },
    async close() {
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}
