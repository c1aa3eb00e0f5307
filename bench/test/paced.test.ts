/**
 * The benchmark's paced client (bench/lib/paced.js and its process, paced-worker.js): it frames
 * HTTP/1.1 responses itself (status line and Content-Length, read into one reused buffer), so
 * these tests serve it responses cut at awkward places and check what it counts.
 */
import net from 'node:net';
import { runPaced, stopPaced } from '../lib/paced';

/** A raw TCP server answering each request with `respond(socket, n)` (n = request number from 0). */
async function rawServer(
  respond: (socket: net.Socket, n: number) => void,
): Promise<{ url: string; close: () => Promise<void>; requests: () => number }> {
  let n = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let pending = '';
    socket.on('data', (chunk) => {
      pending += chunk.toString('latin1');
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(pending.slice(0, end))?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        pending = pending.slice(end + 4 + length);
        respond(socket, n++);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    requests: () => n,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const response = (status: number, body: string): string =>
  `HTTP/1.1 ${status} X\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

afterAll(() => stopPaced());

describe('bench paced client', () => {
  it('sends rate × duration requests and times every 2xx answer, even when a response arrives in pieces', async () => {
    const body = JSON.stringify({ data: 'x'.repeat(40_000) });
    const server = await rawServer((socket, n) => {
      const text = response(200, body);
      if (n % 2 === 0) return void socket.write(text);
      // header cut inside "\r\n\r\n", body in two later writes. The third is scheduled by the
      // second: timers of different durations may run out of order on a loaded machine (Node
      // keeps a list per duration), which wrote the body's end before its start.
      const cut = text.indexOf('\r\n\r\n') + 2;
      socket.write(text.slice(0, cut));
      setTimeout(() => {
        socket.write(text.slice(cut, cut + 1000));
        setTimeout(() => socket.write(text.slice(cut + 1000)), 2);
      }, 2);
    });
    try {
      const r = await runPaced({
        url: server.url,
        body: '{"input":"a"}',
        rate: 200,
        duration: 0.3,
        keepLatencies: true,
      });
      expect(r.requests).toBe(60);
      expect(server.requests()).toBe(60);
      expect(r.errors).toBe(0);
      expect(r.non2xx).toBe(0);
      expect(r.latencies).toHaveLength(60);
      // the split responses took at least their 4 ms of delays
      expect(r.latencies?.filter((ms) => ms >= 4).length).toBeGreaterThanOrEqual(30);
      expect(r.p99).toBeCloseTo(r.latencies?.[59] ?? NaN, 2);
    } finally {
      await server.close();
    }
  });

  it('counts non-2xx answers apart from latencies and a dropped connection as an error', async () => {
    const server = await rawServer((socket, n) => {
      if (n === 3) return void socket.destroy();
      socket.write(n % 2 === 0 ? response(200, '{}') : response(503, '{"error":{}}'));
    });
    try {
      const r = await runPaced({ url: server.url, body: '{}', rate: 100, duration: 0.1, keepLatencies: true });
      expect(r.errors).toBe(1);
      // requests 1, 5, 7 and 9 got a 503, 0, 2, 4, 6 and 8 a 200; request 3 lost its connection
      expect(r.non2xx).toBe(4);
      expect(r.latencies).toHaveLength(5);
      expect(r.requests).toBe(9);
    } finally {
      await server.close();
    }
  });

  it('counts answers that never come as errors once the answer timeout is up, and still ends the run', async () => {
    // Requests 0 and 1 are answered; every later one is read and left hanging, as a stuck target would.
    const server = await rawServer((socket, n) => {
      if (n < 2) socket.write(response(200, '{}'));
    });
    try {
      const r = await runPaced({
        url: server.url,
        body: '{}',
        rate: 100,
        duration: 0.05,
        maxSockets: 2,
        answerTimeoutMs: 300,
      });
      expect(r.requests).toBe(2);
      // Five requests: two answered; of the three left, two hung on the two connections and one never got one.
      expect(r.errors).toBe(3);
      expect(r.seconds).toBeLessThan(5);
    } finally {
      await server.close();
    }
  });
});
