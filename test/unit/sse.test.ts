import { SseSplitter, type SseEvent } from '../../src/providers/sse';

const body = Buffer.from(
  ': keep-alive\r\n\r\nevent: greeting\r\ndata: {"text":"héllo 🌍"}\r\n\r\ndata: line one\ndata: line two\n\n: OPENROUTER PROCESSING\n\ndata: [DONE]\n\n',
);

function split(chunks: Buffer[]): SseEvent[] {
  const s = new SseSplitter();
  const out: SseEvent[] = [];
  for (const c of chunks) out.push(...s.push(c));
  return [...out, ...s.end()];
}

const expected: SseEvent[] = [
  { event: 'greeting', data: '{"text":"héllo 🌍"}' },
  { event: undefined, data: 'line one\nline two' },
  { event: undefined, data: '[DONE]' },
];

describe('SseSplitter', () => {
  it('gives the same events for the body whole and fed one byte at a time (mid-line, mid-UTF-8, between \\r and \\n)', () => {
    expect(split([body])).toEqual(expected);
    expect(split([...body].map((b) => Buffer.from([b])))).toEqual(expected);
  });

  it('gives the same events at every two-piece split of the body', () => {
    for (let i = 1; i < body.length; i++) expect(split([body.subarray(0, i), body.subarray(i)])).toEqual(expected);
  });

  it('drops comments and returns an event only once its blank line arrives', () => {
    const s = new SseSplitter();
    expect(s.push(Buffer.from(': ping\n\ndata: a\n'))).toEqual([]);
    expect(s.push(Buffer.from('\n'))).toEqual([{ event: undefined, data: 'a' }]);
  });

  it('at the end dispatches a last event whose lines are whole, but drops a line cut in the middle', () => {
    const whole = new SseSplitter();
    whole.push(Buffer.from('data: last\n'));
    expect(whole.end()).toEqual([{ event: undefined, data: 'last' }]);
    const cut = new SseSplitter();
    expect(cut.push(Buffer.from('data: {"a":1}\n\ndata: {"b":'))).toEqual([{ event: undefined, data: '{"a":1}' }]);
    expect(cut.end()).toEqual([]);
  });

  it('stops parsing an event that outgrows the bound and says so', () => {
    const s = new SseSplitter(64);
    s.push(Buffer.from(`data: ${'x'.repeat(100)}`));
    expect(s.overflowed).toBe(true);
    expect(s.push(Buffer.from('\n\ndata: after\n\n'))).toEqual([]);
  });
});
