/**
 * The paced client's response framer (bench/lib/response-reader.js): Content-Length and chunked
 * answers, cut at every byte, and the SSE `data:` lines it counts and times the first of.
 */
import { ResponseReader } from '../lib/response-reader';

/** A chunked HTTP/1.1 response whose body is `parts`, one chunk each (hex sizes, as Node writes them). */
function chunked(parts: string[], trailer = ''): Buffer {
  const head = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n';
  const body = parts.map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`).join('');
  return Buffer.from(`${head}${body}0\r\n${trailer}\r\n`, 'latin1');
}

function withLength(status: number, body: string): Buffer {
  return Buffer.from(
    `HTTP/1.1 ${status} X\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    'latin1',
  );
}

/**
 * Feed `bytes` to a reader in pieces of `step` bytes; returns the reader, the byte offset at which
 * the first-event callback ran (null if never) and how many times it ran.
 */
function feed(
  bytes: Buffer,
  step: number,
): { reader: ResponseReader; firstAt: number | null; calls: number; consumed: number } {
  const reader = new ResponseReader();
  let firstAt: number | null = null;
  let calls = 0;
  let consumed = 0;
  for (let at = 0; at < bytes.length && !reader.complete; at += step) {
    const end = Math.min(bytes.length, at + step);
    consumed = reader.read(bytes, at, end, () => {
      calls += 1;
      firstAt = end;
    });
  }
  return { reader, firstAt, calls, consumed };
}

const EVENTS = [
  ': keep-alive comment, not an event\n\n',
  'data: {"choices":[{"delta":{"content":"the text says data: here"}}]}\n\n',
  'data: {"choices":[{"delta":{"content":"x"}}]}\n\ndata: {"usage":{"completion_tokens":2}}\n\n',
  'data: [DONE]\n\n',
];

describe('bench response reader', () => {
  it.each([1, 2, 3, 7, 64, 100_000])(
    'frames a chunked SSE answer read %i bytes at a time, counting only lines that start with data:',
    (step) => {
      const bytes = chunked(EVENTS);
      const { reader, calls, consumed } = feed(bytes, step);
      expect(reader.complete).toBe(true);
      expect(reader.chunked).toBe(true);
      expect(reader.status).toBe(200);
      expect(reader.events).toBe(4);
      expect(calls).toBe(1);
      expect(consumed).toBe(bytes.length);
    },
  );

  it('calls back on the byte that completes the first data: line, not on the headers or a comment before it', () => {
    const bytes = chunked(EVENTS);
    const { firstAt } = feed(bytes, 1);
    const text = bytes.toString('latin1');
    // The first "data:" that starts a line of the body, past the comment event.
    const firstData = text.indexOf('\ndata:') + 1;
    expect(firstAt).toBe(firstData + 'data:'.length);
  });

  it('frames the same answer without reading its body for events when not counting them', () => {
    const bytes = chunked(EVENTS);
    const reader = new ResponseReader();
    reader.reset(false);
    let calls = 0;
    expect(reader.read(bytes, 0, bytes.length, () => (calls += 1))).toBe(bytes.length);
    expect(reader.complete).toBe(true);
    expect(reader.events).toBe(0);
    expect(calls).toBe(0);
  });

  it('counts a data: line split across two chunks once', () => {
    const { reader } = feed(chunked(['da', 'ta: {"a":1}\n\nd', 'ata: [DONE]\n\n']), 5);
    expect(reader.events).toBe(2);
    expect(reader.complete).toBe(true);
  });

  it('reads chunk sizes with upper-case hex digits and extensions, and skips trailers', () => {
    const big = `data: ${'y'.repeat(300)}\n\n`;
    const head = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n';
    const bytes = Buffer.from(
      `${head}${Buffer.byteLength(big).toString(16).toUpperCase()};ext=1\r\n${big}\r\n0\r\nX-Trailer: 1\r\n\r\n`,
      'latin1',
    );
    const { reader, consumed } = feed(bytes, bytes.length);
    expect(reader.complete).toBe(true);
    expect(reader.events).toBe(1);
    expect(consumed).toBe(bytes.length);
  });

  it('is not complete until the chunked terminator has arrived', () => {
    const bytes = chunked(EVENTS);
    const reader = new ResponseReader();
    reader.read(bytes, 0, bytes.length - 2);
    expect(reader.complete).toBe(false);
    reader.read(bytes, bytes.length - 2, bytes.length);
    expect(reader.complete).toBe(true);
  });

  it('frames a Content-Length answer and stops at its end, so the next response in the buffer is left for the next read', () => {
    const first = withLength(200, JSON.stringify({ choices: [{ message: { content: 'data: not an event' } }] }));
    const second = withLength(429, '{"error":{"message":"slow down"}}');
    const both = Buffer.concat([first, second]);
    const reader = new ResponseReader();
    const at = reader.read(both, 0, both.length);
    expect(reader.complete).toBe(true);
    expect(reader.status).toBe(200);
    expect(reader.events).toBe(0);
    expect(at).toBe(first.length);
    reader.reset();
    expect(reader.read(both, at, both.length)).toBe(both.length);
    expect(reader.status).toBe(429);
    expect(reader.complete).toBe(true);
  });

  it('completes an empty Content-Length answer at the end of its headers', () => {
    const bytes = Buffer.from('HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n', 'latin1');
    const { reader } = feed(bytes, 4);
    expect(reader.complete).toBe(true);
    expect(reader.status).toBe(204);
  });

  it('refuses a response it cannot frame', () => {
    const bytes = Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nrest', 'latin1');
    expect(() => new ResponseReader().read(bytes, 0, bytes.length)).toThrow(/neither Content-Length nor chunked/);
  });
});
