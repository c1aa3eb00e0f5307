/**
 * A fake upstream: a real HTTP server on 127.0.0.1 that answers one provider wire format and can
 * be told to misbehave: any status (429/500/503/529 …) with a body and headers, extra latency, a
 * hang (never answers), an answer held until the test releases it, a connection reset, or
 * malformed JSON. Faults are queued (one per
 * request) or sticky; every request is recorded for assertions.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One way to misbehave. */
export type Fault =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { hang: true }
  | { reset: true }
  | { malformed: true }
  /** 200 with exactly these bytes (e.g. a number JSON.parse reads as Infinity). */
  | { rawBody: string }
  /** 200 with the wire's own success body passed through `edit` first (odd vectors, wrong lengths …). */
  | { reshape: (body: Record<string, unknown>) => unknown }
  | { latencyMs: number }
  /** Answer normally once `holdUntil` settles; `arrived` is called when the request is in. */
  | { holdUntil: Promise<unknown>; arrived?: () => void };

/** A request the fake received. */
export interface RecordedCall {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** Produces the wire format's success body for a request body. */
export type WireHandler = (path: string, body: Record<string, unknown>, opts: { reportUsage: boolean }) => unknown;

/** A running fake upstream. */
export interface FakeUpstream {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  calls: RecordedCall[];
  /** Whether success bodies carry token usage (off → the gateway must count tokens). */
  reportUsage: boolean;
  /** Faults applied to the next requests, one each, before the sticky one. */
  queue(...faults: Fault[]): void;
  /** Applied to every request once the queue is empty; null = behave. */
  setSticky(fault: Fault | null): void;
  /** Forget calls and faults. */
  reset(): void;
  close(): Promise<void>;
}

/** Start a fake speaking `wire` on an ephemeral port. */
export async function startFake(wire: WireHandler): Promise<FakeUpstream> {
  const queued: Fault[] = [];
  let sticky: Fault | null = null;
  const sockets = new Set<import('node:net').Socket>();
  const fake: FakeUpstream = {
    origin: '',
    calls: [],
    reportUsage: true,
    queue: (...faults) => void queued.push(...faults),
    setSticky: (f) => void (sticky = f),
    reset: () => {
      fake.calls.length = 0;
      queued.length = 0;
      sticky = null;
      fake.reportUsage = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        /* recorded as {} */
      }
      fake.calls.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const fault = queued.shift() ?? sticky;
      const succeed = (edit: (b: Record<string, unknown>) => unknown = (b) => b) => {
        const out = JSON.stringify(edit(wire(req.url ?? '', body, { reportUsage: fake.reportUsage }) as Record<string, unknown>));
        res.writeHead(200, { 'content-type': 'application/json' }).end(out);
      };
      if (!fault) return succeed();
      if ('hang' in fault) return; // never answer; the socket is destroyed on close
      if ('reset' in fault) return req.socket.destroy();
      if ('malformed' in fault) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data": [ {"embedding": [0.1, ');
      if ('rawBody' in fault) return void res.writeHead(200, { 'content-type': 'application/json' }).end(fault.rawBody);
      if ('reshape' in fault) return succeed(fault.reshape);
      if ('latencyMs' in fault) return void setTimeout(succeed, fault.latencyMs);
      if ('holdUntil' in fault) {
        fault.arrived?.();
        return void fault.holdUntil.then(() => succeed());
      }
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers }).end(JSON.stringify(fault.body ?? { error: { message: 'fake failure' } }));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
