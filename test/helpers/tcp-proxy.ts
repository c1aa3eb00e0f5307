/**
 * A TCP proxy in front of a real service that tests switch on and off, to simulate the
 * service being unreachable (nothing listens on the proxy's port) and coming back, without
 * touching the shared service itself or starting processes.
 */
import net from 'node:net';

/** A switchable proxy on a fixed loopback port. */
export interface TcpProxy {
  port: number;
  /** Start accepting and forwarding connections. */
  open(): Promise<void>;
  /** Stop listening and cut every forwarded connection. */
  close(): Promise<void>;
}

/** A free loopback port (bound and released at once). */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A proxy to `targetHost:targetPort`, initially closed. */
export async function tcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const port = await freePort();
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
