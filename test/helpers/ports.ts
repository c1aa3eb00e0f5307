/**
 * Free TCP ports on 127.0.0.1 for servers a test starts. All `n` are held open until every one is
 * known, so two calls' worth can never come back as the same port (closing each before asking for
 * the next let the kernel hand the same one out twice).
 */
import net from 'node:net';

/** `n` distinct free ports on 127.0.0.1. */
export async function freePorts(n: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const s = net.createServer();
      servers.push(s);
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return servers.map((s) => (s.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
}
