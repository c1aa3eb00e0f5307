/**
 * Issue 61 items 5 and 7: a chat answer is bounded. A stream that sends more than
 * `chat.streamMaxBytes`, or runs longer than `chat.streamMaxMs`, is ended with the door's error
 * event (and recorded as an error, its tokens charged); a whole answer over `chat.maxAnswerBytes`
 * is a failed attempt; a client that stops reading is told apart from an upstream that is silent,
 * and an upstream that keeps sending is never taken for a silent one.
 */
import http from 'node:http';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { until } from '../helpers/eventually';

const LLAMA = 'meta-llama/llama-3.3-70b-instruct';
const ONLY_DEEPINFRA = { provider: { only: ['deepinfra'], allow_fallbacks: false } };

/** The chunk of an OpenAI chat stream that carries `text`. */
const contentEvent = (text: string) =>
  `data: ${JSON.stringify({ id: 'up', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`;

const body = (extra: Record<string, unknown>) =>
  JSON.stringify({ model: LLAMA, messages: [{ role: 'user', content: 'hello there' }], ...ONLY_DEEPINFRA, ...extra });

const post = (h: GatewayHarness) =>
  http.request(`${h.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
  });

/** A streamed request read to its end: its status and `data:` payloads. */
function streamed(h: GatewayHarness, extra: Record<string, unknown> = {}): Promise<{ status: number; data: string[] }> {
  return new Promise((resolve, reject) => {
    const req = post(h);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (t: string) => (text += t));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          data: text
            .split('\n\n')
            .filter((e) => e.startsWith('data: '))
            .map((e) => e.slice(6)),
        }),
      );
    });
    req.on('error', reject);
    req.end(body({ stream: true, ...extra }));
  });
}

describe('chat answers are bounded', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({
      listen: true,
      overrides: {
        chat: {
          attemptTimeoutMs: 2000,
          deadlineMs: 5000,
          keepAliveMs: 50,
          streamMaxBytes: 64 * 1024,
          streamMaxMs: 1500,
          maxAnswerBytes: 4096,
        },
        breaker: { failureThreshold: 1000 },
      },
    });
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.fleet.resetAll();
    h.events.length = 0;
  });

  test('a stream over chat.streamMaxBytes ends with the error chunk and [DONE]; its tokens are charged', async () => {
    const big = 'word '.repeat(2000); // 10 KB a chunk: the cap is passed after about six
    h.fleet.fakes.deepinfra!.setSticky({
      reshapeEvents: (events: string[]) => [events[0]!, ...Array.from({ length: 40 }, () => contentEvent(big))],
    });
    const s = await streamed(h);
    expect(s.status).toBe(200);
    expect(s.data.at(-1)).toBe('[DONE]');
    const error = JSON.parse(s.data.at(-2)!) as { error: { code: number; message: string } };
    expect(error.error).toEqual({ code: 502, message: expect.stringMatching(/sent over 65536 bytes/) });
    expect((await h.fleet.fakes.deepinfra!.calls[0]!.ended).aborted).toBe(true);
    await until('the usage record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({ status: 'error', finishReason: 'error', usageEstimated: true });
    expect(h.events[0]!.tokensCompletion).toBeGreaterThan(0);
  });

  test('a stream still running after chat.streamMaxMs is ended the same way', async () => {
    h.fleet.fakes.deepinfra!.setSticky({ eventIntervalMs: 100 }); // a word every 100 ms: 30 words take 3 s
    const s = await streamed(h, { messages: [{ role: 'user', content: 'word '.repeat(30) }] });
    expect(s.status).toBe(200);
    const error = JSON.parse(s.data.at(-2)!) as { error: { message: string } };
    expect(error.error.message).toMatch(/ran for 1500 ms/);
    expect(s.data.at(-1)).toBe('[DONE]');
  });

  test("an upstream's in-stream error text never reaches the client (issue 61 item 7)", async () => {
    const secret = 'upstream secret sk-upstream-LEAKME';
    h.fleet.fakes.deepinfra!.setSticky({
      errorAfterEvents: 3,
      event: `data: ${JSON.stringify({ error: { message: secret, type: 'server_error', code: 500 } })}\n\n`,
    });
    const s = await streamed(h, { messages: [{ role: 'user', content: 'word '.repeat(10) }] });
    expect(s.status).toBe(200);
    expect(s.data.join('\n')).not.toContain('LEAKME');
    const error = JSON.parse(s.data.at(-2)!) as { error: { code: number; message: string } };
    expect(error.error).toEqual({ code: 500, message: 'Internal Server Error' });
  });

  test('the only candidate failing before any content gets its error status, not a 200 (issue 61 item 7)', async () => {
    h.fleet.fakes.deepinfra!.setSticky({ errorAfterEvents: 1 }); // the role chunk, then an error event
    const s = await streamed(h);
    expect(s.status).toBe(502);
    expect(h.events).toHaveLength(0);
  });

  test('an OpenAI stream that ends cleanly after its finish reason, without [DONE], is not an error (issue 61 item 7)', async () => {
    h.fleet.fakes.deepinfra!.reportUsage = false; // no usage chunk either: the finish reason is the last word
    h.fleet.fakes.deepinfra!.setSticky({
      reshapeEvents: (events: string[]) => events.filter((e) => !e.includes('[DONE]')),
    });
    const s = await streamed(h);
    expect(s.status).toBe(200);
    expect(s.data.at(-1)).toBe('[DONE]');
    expect(JSON.parse(s.data.at(-2)!)).toMatchObject({ usage: { completion_tokens: expect.any(Number) } });
    await until('the usage record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({ status: 'ok', finishReason: 'stop', usageEstimated: true });
  });

  test("max_tokens above the endpoint's maximum output is capped before the call (issue 61 item 7)", async () => {
    const res = await fetch(`${h.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: LLAMA,
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: 128_000,
        provider: { only: ['groq'] },
      }),
    });
    expect(res.status).toBe(200);
    expect(h.fleet.fakes.groq!.calls[0]!.body.max_tokens).toBe(32_768); // groq's max_completion_tokens in the catalog
  });

  test('a whitespace-only stop value never reaches an Anthropic-format upstream (issue 61 item 7)', async () => {
    const send = (model: string, stop: string[]) =>
      fetch(`${h.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }], stop }),
      });
    const refused = await send('anthropic/claude-3.5-haiku', ['END', ' \n']);
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { metadata: { errors: Array<{ path: string }> } } };
    expect(body.error.metadata.errors).toEqual([
      { path: 'body.stop.1', message: expect.stringMatching(/whitespace only/) },
    ]);
    expect(h.fleet.fakes.anthropic!.calls).toHaveLength(0);
    expect((await send(LLAMA, ['\n'])).status).toBe(200); // OpenAI-format providers take it
    expect(h.fleet.fakes.deepinfra!.calls[0]!.body.stop).toEqual(['\n']);
  });

  test('a whole answer over chat.maxAnswerBytes is a failed attempt: 502, nothing recorded', async () => {
    const send = (content: string) =>
      fetch(`${h.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
        body: body({ messages: [{ role: 'user', content }] }),
      });
    expect((await send('long '.repeat(2000))).status).toBe(502);
    expect(h.events).toHaveLength(0);
    expect((await send('short')).status).toBe(200);
  });
});

describe('a client that stops reading', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({
      listen: true,
      overrides: { chat: { streamIdleTimeoutMs: 400, keepAliveMs: 50 }, breaker: { failureThreshold: 1000 } },
    });
  });
  afterAll(() => h.close());

  test('is not upstream silence: ended as client_stopped_reading, not as an upstream error', async () => {
    const big = 'x'.repeat(64 * 1024 - 200);
    h.fleet.fakes.deepinfra!.setSticky({
      reshapeEvents: (events: string[]) => [events[0]!, ...Array.from({ length: 400 }, () => contentEvent(big))],
    });
    const req = post(h);
    req.on('response', (res) => res.pause()); // never reads a byte of the body
    req.on('error', () => undefined);
    req.end(body({ stream: true }));
    await until('the usage record', () => h.events.length === 1, { timeoutMs: 10_000 });
    expect(h.events[0]).toMatchObject({ nativeFinishReason: 'client_stopped_reading', streamed: true });
    expect(h.events[0]!.status).toBe('ok'); // not an upstream failure (a 524 before this fix)
    req.destroy();
  });

  test('an upstream that keeps sending within the idle timeout is never cut, however long it runs', async () => {
    // Gaps of 150 ms between the fake's events: at least 600 ms in all, past the 400 ms idle
    // timeout, each read restarting it.
    h.fleet.fakes.deepinfra!.setSticky({ eventIntervalMs: 150 });
    const res = await streamed(h, { stream: true });
    expect(res.status).toBe(200);
    expect(res.data.length).toBeGreaterThanOrEqual(5);
    expect(res.data.at(-1)).toBe('[DONE]');
    expect(res.data.join('')).not.toContain('sent nothing');
  });

  test('an upstream silent for the idle timeout mid-stream ends it with an error event', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    h.fleet.fakes.deepinfra!.setSticky({ beforeEvent: (i: number) => (i === 3 ? held : Promise.resolve()) });
    const before = h.events.length;
    const res = await streamed(h, { stream: true });
    release();
    expect(res.status).toBe(200);
    expect(res.data.join('\n')).toContain('the upstream sent nothing for 400 ms');
    await until('the usage record', () => h.events.length > before, { timeoutMs: 5_000 });
    expect(h.events.at(-1)).toMatchObject({ status: 'error', streamed: true });
  });
});
