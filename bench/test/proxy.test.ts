/**
 * The benchmark's bare proxy (bench/proxy.js, as a child process on loopback): a client that goes
 * away mid-stream must free the upstream connection, or a load run that ends with streams in
 * flight leaves sockets held out of its agent until the proxy hangs.
 */
import http from 'node:http';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';

async function startProxy(upstream: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'proxy.js')], {
    env: { ...process.env, UPSTREAM: upstream },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`proxy exited with ${code}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      const m = /READY (\d+)/.exec(chunk.toString());
      if (m) resolve(Number(m[1]));
    });
  });
  return { child, port };
}

describe('bench proxy', () => {
  it('closes the upstream answer when its client goes away mid-stream', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    // An upstream whose stream never ends: an event every 20 ms until its connection closes.
    const upstream = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => res.write('data: {}\n\n'), 20);
      res.on('close', () => {
        clearInterval(timer);
        upstreamClosed();
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { child, port } = await startProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
    try {
      await new Promise<void>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions' }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', () => undefined);
        req.once('error', reject);
        req.end('{}');
      });
      const timedOut = new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 3000).unref());
      await expect(Promise.race([closed.then(() => 'closed'), timedOut])).resolves.toBe('closed');
    } finally {
      child.kill('SIGKILL');
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    }
  }, 15_000);
});
