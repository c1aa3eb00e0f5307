/**
 * The benchmarks' paced client (bench/lib/paced.js and its process) as the chat benchmark uses it:
 * against real HTTP servers on loopback it times the first SSE event apart from the headers,
 * frames chunked streams and Content-Length answers alike, and counts each answer's data: events
 * when asked to time the first event (and only then).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runPaced, stopPaced } from '../lib/paced';

/** How long the streaming server holds its events after sending the headers. */
const HOLD_MS = 150;

async function listen(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Headers and a comment at once, then three data: events HOLD_MS later, each its own chunk. */
const streaming = (req: http.IncomingMessage, res: http.ServerResponse): void => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': processing\n\n');
    setTimeout(() => {
      res.write('data: {"choices":[{"delta":{"content":"a"}}]}\n\n');
      res.write('data: {"usage":{"completion_tokens":1}}\n\n');
      res.end('data: [DONE]\n\n');
    }, HOLD_MS);
  });
};

afterAll(() => stopPaced());

describe('bench paced client: first events', () => {
  it('times a stream to its first data: event, not to its headers, and counts its events', async () => {
    const server = await listen(streaming);
    try {
      const r = await runPaced({
        url: server.url,
        body: '{"stream":true}',
        rate: 20,
        duration: 0.5,
        firstByte: 'event',
      });
      expect(r.requests).toBe(10);
      expect(r.errors + r.non2xx + r.noEvent).toBe(0);
      expect(r.eventsMin).toBe(3);
      expect(r.eventsMax).toBe(3);
      expect(r.ttfbP50!).toBeGreaterThanOrEqual(HOLD_MS - 1);
      expect(r.p50!).toBeGreaterThanOrEqual(r.ttfbP50!);
    } finally {
      await server.close();
    }
  });

  it('times the same stream to its first byte when asked for bytes', async () => {
    const server = await listen(streaming);
    try {
      const r = await runPaced({
        url: server.url,
        body: '{"stream":true}',
        rate: 20,
        duration: 0.5,
        firstByte: 'byte',
        keepLatencies: true,
      });
      expect(r.requests).toBe(10);
      // Every answer's first byte (the headers) came before its events, which came HOLD_MS later.
      for (let i = 0; i < r.ttfb!.length; i++) expect(r.ttfb![i]!).toBeLessThan(r.latencies![r.latencies!.length - 1]!);
      expect(r.ttfbP50!).toBeLessThan(HOLD_MS - 1);
      expect(r.p50!).toBeGreaterThanOrEqual(HOLD_MS - 1);
      // Timing bytes, it does not read the bodies for events.
      expect(r.eventsMax).toBeNull();
    } finally {
      await server.close();
    }
  });

  it('frames Content-Length answers, counts a non-2xx apart, and finds no events in JSON', async () => {
    let n = 0;
    const server = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        const body =
          n++ % 2 === 0
            ? '{"choices":[{"message":{"content":"data: inside a string"}}]}'
            : '{"error":{"message":"busy"}}';
        res.writeHead(n % 2 === 1 ? 200 : 503, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        });
        res.end(body);
      });
    });
    try {
      const r = await runPaced({
        url: server.url,
        body: '{}',
        rate: 40,
        duration: 0.5,
        maxSockets: 1,
        firstByte: 'event',
      });
      expect(r.requests).toBe(20);
      expect(r.non2xx).toBe(10);
      expect(r.errors).toBe(0);
      // "data:" inside a JSON string does not start a line: no events, each 2xx timed to its end.
      expect(r.eventsMax).toBe(0);
      expect(r.noEvent).toBe(10);
      expect(r.ttfbP50).not.toBeNull();
    } finally {
      await server.close();
    }
  });
});
