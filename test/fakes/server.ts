/**
 * A fake upstream: a real HTTP server on 127.0.0.1 that answers one provider's wire formats,
 * routed by path (its chat wire's `/chat/completions` or `/messages`, else its embeddings wire),
 * and can be told to misbehave: any status (429/500/503/529 …) with a body and headers, extra
 * latency, a hang (never answers), an answer held until the test releases it, a connection reset,
 * or malformed JSON; for streams also a cut or an error event after N events, a paced stream
 * (an interval, or each event released by the test), and edited events (`reshapeEvents`). Faults
 * are queued (one per request) or sticky; every request is recorded for assertions, with when its
 * response ended or was aborted.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatWire } from './chat-wires';

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
  | { holdUntil: Promise<unknown>; arrived?: () => void }
  /** A stream: the first `cutAfterEvents` events, then the connection is destroyed. */
  | { cutAfterEvents: number }
  /** A stream: the first `errorAfterEvents` events, then the wire's error event (or `event`), then the end. */
  | { errorAfterEvents: number; event?: string }
  /** A stream whose events are `eventIntervalMs` apart (the first one at once). */
  | { eventIntervalMs: number }
  /** A stream whose event `index` is written once `beforeEvent(index)` settles (the test releases them). */
  | { beforeEvent: (index: number) => Promise<unknown> }
  /** A stream of the wire's own events passed through `edit` first (a hostile usage chunk …). */
  | { reshapeEvents: (events: string[]) => string[] };

/** A request the fake received. */
export interface RecordedCall {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The body's text as it arrived. */
  text: string;
  /**
   * Settles when the fake's response is over: `aborted` when the connection closed before the
   * answer was complete (the client, e.g. the gateway, gave up on it).
   */
  ended: Promise<{ aborted: boolean }>;
}

/** Stream faults, which a non-streamed request ignores. */
type StreamFault = Extract<
  Fault,
  | { cutAfterEvents: number }
  | { errorAfterEvents: number }
  | { eventIntervalMs: number }
  | { beforeEvent: unknown }
  | { reshapeEvents: unknown }
>;

function isStreamFault(f: Fault): f is StreamFault {
  return (
    'cutAfterEvents' in f ||
    'errorAfterEvents' in f ||
    'eventIntervalMs' in f ||
    'beforeEvent' in f ||
    'reshapeEvents' in f
  );
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Write `events` one per write, applying a stream fault; stops when the client has gone. */
async function writeStream(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  wireEvents: Array<string | Buffer>,
  chat: ChatWire,
  fault: StreamFault | null,
): Promise<void> {
  const events =
    fault && 'reshapeEvents' in fault ? fault.reshapeEvents(wireEvents.map((e) => e.toString())) : wireEvents;
  res.writeHead(200, { 'content-type': chat.streamContentType ?? 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  for (let i = 0; i < events.length; i++) {
    if (fault && 'cutAfterEvents' in fault && i === fault.cutAfterEvents) return void req.socket.destroy();
    if (fault && 'errorAfterEvents' in fault && i === fault.errorAfterEvents)
      return void res.end(fault.event ?? chat.errorEvent);
    if (fault && 'beforeEvent' in fault) await fault.beforeEvent(i);
    else if (fault && 'eventIntervalMs' in fault && i > 0)
      await new Promise((resolve) => setTimeout(resolve, fault.eventIntervalMs));
    else await nextTurn();
    if (res.destroyed || res.writableEnded) return;
    res.write(events[i]);
  }
  res.end();
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
  /** Decides a request's fault from its headers first (e.g. per API key); null = the queue and sticky decide. */
  decide: ((headers: http.IncomingHttpHeaders) => Fault | null) | null;
  /** Forget calls and faults. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * Start a fake on an ephemeral port speaking `wire` (embeddings; null for none) and `chat` (one
 * or more chat wires: requests whose path ends with a wire's `path`). Other paths get a 404.
 */
export async function startFake(wire: WireHandler | null, chat?: ChatWire | ChatWire[]): Promise<FakeUpstream> {
  const chats = chat === undefined ? [] : Array.isArray(chat) ? chat : [chat];
  const queued: Fault[] = [];
  let sticky: Fault | null = null;
  const sockets = new Set<import('node:net').Socket>();
  const fake: FakeUpstream = {
    origin: '',
    calls: [],
    reportUsage: true,
    decide: null,
    queue: (...faults) => void queued.push(...faults),
    setSticky: (f) => void (sticky = f),
    reset: () => {
      fake.calls.length = 0;
      queued.length = 0;
      sticky = null;
      fake.decide = null;
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
    req.on('end', () => void handle());
    const handle = async (): Promise<void> => {
      let body: Record<string, unknown> = {};
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        /* recorded as {} */
      }
      const ended = new Promise<{ aborted: boolean }>((resolve) =>
        res.on('close', () => resolve({ aborted: !res.writableFinished })),
      );
      fake.calls.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, text, ended });
      const [path = '', query = ''] = (req.url ?? '').split('?');
      const chatWire = chats.find((c) => (c.matches ? c.matches(path) : path.endsWith(c.path))) ?? null;
      const denied = await chatWire?.authenticate?.({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
      });
      if (denied)
        return void res
          .writeHead(denied.status, { 'content-type': 'application/json', ...denied.headers })
          .end(JSON.stringify(denied.body));
      const streams = chatWire?.streams
        ? chatWire.streams(path, new URLSearchParams(query), body)
        : body.stream === true;
      if (!chatWire && !wire)
        return void res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"message":"no such route"}}');
      const next = fake.decide?.(req.headers) ?? queued.shift() ?? sticky;
      const streamFault = next && isStreamFault(next) ? next : null;
      const fault: Exclude<Fault, StreamFault> | null = next && !isStreamFault(next) ? next : null;
      const opts = { reportUsage: fake.reportUsage, path };
      const succeed = (edit: (b: Record<string, unknown>) => unknown = (b) => b) => {
        if (chatWire && streams) return void writeStream(req, res, chatWire.events(body, opts), chatWire, streamFault);
        let answer: unknown;
        try {
          answer = chatWire ? chatWire.answer(body, opts) : wire!(req.url ?? '', body, opts);
        } catch {
          // A body the wire cannot read (cut short, or not this provider's shape) gets the
          // provider's own 400, as the real one would answer; the fake never throws in its handler.
          return void res
            .writeHead(400, { 'content-type': 'application/json' })
            .end('{"error":{"message":"invalid request body"}}');
        }
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(edit(answer as Record<string, unknown>)));
      };
      const refused = chatWire?.refuse?.(body, path);
      if (refused && !fault)
        return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(refused));
      if (!fault) return succeed();
      if ('hang' in fault) return; // never answer; the socket is destroyed on close
      if ('reset' in fault) return void req.socket.destroy();
      if ('malformed' in fault)
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data": [ {"embedding": [0.1, ');
      if ('rawBody' in fault) return void res.writeHead(200, { 'content-type': 'application/json' }).end(fault.rawBody);
      if ('reshape' in fault) return succeed(fault.reshape);
      if ('latencyMs' in fault) return void setTimeout(succeed, fault.latencyMs);
      if ('holdUntil' in fault) {
        fault.arrived?.();
        return void fault.holdUntil.then(() => succeed());
      }
      res
        .writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers })
        .end(JSON.stringify(fault.body ?? { error: { message: 'fake failure' } }));
    };
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
