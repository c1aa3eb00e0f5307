/**
 * POST /chat/completions with `stream: true`, over a real loopback socket: SSE events as they
 * arrive, the gateway's last chunk (usage with cost) and `[DONE]`, fallback before the first
 * content, the hosted service's error chunk after it, 524 for an upstream that never answers, and
 * a client that leaves: the upstream call is aborted and what was generated is recorded.
 */
import http from 'node:http';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { until } from '../helpers/eventually';

const LLAMA = 'meta-llama/llama-3.3-70b-instruct';
const HAIKU = 'anthropic/claude-3.5-haiku';
const LLAMA_PROVIDERS = ['deepinfra', 'groq', 'together', 'fireworks'] as const;

interface Streamed {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The `data:` payloads in order (`[DONE]` included), comments left out. */
  data: string[];
}

/** A chunk as the tests read it. */
interface Chunk {
  id?: string;
  provider?: string;
  usage?: { cost: number; completion_tokens: number };
  error?: { code: number; message: string };
  choices?: Array<{
    finish_reason?: string | null;
    delta?: { role?: string; content?: string; tool_calls?: Array<{ function?: { arguments?: string } }> };
  }>;
}

/** JSON chunks of a stream (everything but `[DONE]`). */
const chunks = (s: Streamed) => s.data.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as Chunk);
/** The content the chunks carry, joined. */
const contentOf = (s: Streamed) =>
  chunks(s)
    .map((c) => c.choices?.[0]?.delta?.content ?? '')
    .join('');

describe('POST /chat/completions (streams)', () => {
  let h: GatewayHarness;
  let url: URL;
  beforeAll(async () => {
    h = await startGatewayHarness({
      listen: true,
      overrides: {
        chat: { attemptTimeoutMs: 400, deadlineMs: 3000, keepAliveMs: 50 },
        breaker: { failureThreshold: 1000 },
      },
    });
    url = new URL(`${h.baseUrl}/chat/completions`);
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => {
    h.fleet.resetAll();
    h.events.length = 0;
  });

  /** Send a streamed request; resolves with what arrived once the response ends. */
  function stream(
    body: Record<string, unknown>,
    onEvent?: (data: string, req: http.ClientRequest) => void,
  ): Promise<Streamed> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        url,
        { method: 'POST', headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' } },
        (res) => {
          const data: string[] = [];
          let buffer = '';
          res.setEncoding('utf8');
          res.on('data', (text: string) => {
            buffer += text;
            let at: number;
            while ((at = buffer.indexOf('\n\n')) !== -1) {
              const event = buffer.slice(0, at);
              buffer = buffer.slice(at + 2);
              if (event.startsWith('data: ')) {
                data.push(event.slice(6));
                onEvent?.(event.slice(6), req);
              }
            }
          });
          const done = () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              data: res.statusCode === 200 ? data : [buffer],
            });
          res.on('end', done);
          res.on('close', done);
        },
      );
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end(
        JSON.stringify({
          model: LLAMA,
          messages: [{ role: 'user', content: 'hello there my friend' }],
          stream: true,
          ...body,
        }),
      );
    });
  }

  test('events pass through as they come; the last chunk carries usage with cost and the generation id; [DONE] ends it', async () => {
    const s = await stream({});
    expect(s.status).toBe(200);
    expect(s.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(contentOf(s)).toBe('echo: hello there my friend');
    expect(s.data.at(-1)).toBe('[DONE]');
    const last = chunks(s).at(-1)!;
    expect(last).toMatchObject({
      id: s.headers['x-generation-id'],
      object: 'chat.completion.chunk',
      model: LLAMA,
      provider: 'DeepInfra',
      choices: [],
    });
    expect(last.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 5, total_tokens: 9 });
    expect(last.usage!.cost).toBeCloseTo(4 * 0.13e-6 + 5 * 0.4e-6, 12);
    // Exactly one chunk carries usage: the upstream's usage-only chunk was replaced, not repeated.
    expect(chunks(s).filter((c) => c.usage)).toHaveLength(1);
    expect(h.fleet.fakes.deepinfra!.calls[0]!.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
    await until('the usage record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({
      id: last.id,
      streamed: true,
      status: 'ok',
      tokensPrompt: 4,
      tokensCompletion: 5,
      finishReason: 'stop',
      usageEstimated: false,
    });
    expect(h.events[0]!.costUsd).toBe(last.usage!.cost);
    expect(h.events[0]!.timeToFirstTokenMs).toEqual(expect.any(Number));
  });

  test('Anthropic events become OpenAI chunks, tool-call arguments split across deltas reassemble', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
    const s = await stream({ model: HAIKU, tools });
    expect(s.status).toBe(200);
    const calls = chunks(s).flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'lookup' } });
    expect(calls.map((c: { function?: { arguments?: string } }) => c.function?.arguments ?? '').join('')).toBe(
      '{"text":"hello there my friend"}',
    );
    expect(chunks(s).some((c) => c.choices?.[0]?.finish_reason === 'tool_calls')).toBe(true);
    expect(chunks(s).at(-1)).toMatchObject({ provider: 'Anthropic', usage: { completion_tokens: expect.any(Number) } });
    await until('the usage record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({ toolCalls: 1, finishReason: 'tool_calls', model: HAIKU });
  });

  test.each([
    ['a 500 before the first byte', { status: 500 }],
    ['a connection cut before the first content (after the role chunk)', { cutAfterEvents: 1 }],
    ['an error event before the first content', { errorAfterEvents: 1 }],
  ])('%s → falls back; nothing of the failed attempt reaches the client', async (_name, fault) => {
    h.fleet.fakes.deepinfra!.setSticky(fault);
    const s = await stream({});
    expect(s.status).toBe(200);
    expect(contentOf(s)).toBe('echo: hello there my friend');
    expect(chunks(s).at(-1)!.provider).toBe('Groq');
    expect(chunks(s).filter((c) => c.choices?.[0]?.delta?.role === 'assistant')).toHaveLength(1);
  });

  test.each([
    ['an error event', { errorAfterEvents: 3 }],
    ['a cut connection', { cutAfterEvents: 3 }],
  ])(
    '%s after the first content → the error chunk (finish_reason error) and [DONE]; the tokens are still recorded',
    async (_name, fault) => {
      h.fleet.fakes.deepinfra!.setSticky(fault);
      const s = await stream({});
      expect(s.status).toBe(200);
      const error = chunks(s).at(-1)!;
      expect(error).toMatchObject({
        error: { code: expect.any(Number), message: expect.any(String) },
        choices: [{ finish_reason: 'error' }],
      });
      expect(s.data.at(-1)).toBe('[DONE]');
      expect(h.fleet.fakes.groq!.calls).toHaveLength(0);
      await until('the usage record', () => h.events.length === 1);
      expect(h.events[0]).toMatchObject({ status: 'error', finishReason: 'error', streamed: true });
      expect(h.events[0]!.tokensCompletion).toBeGreaterThan(0);
      expect(h.events[0]!.costUsd).toBeGreaterThan(0);
    },
  );

  test('every upstream hangs before its first byte → a 524 envelope (nothing was sent yet)', async () => {
    for (const p of LLAMA_PROVIDERS) h.fleet.fakes[p]!.setSticky({ hang: true });
    const s = await stream({});
    expect(s.status).toBe(524);
    expect(JSON.parse(s.data[0]!)).toMatchObject({ error: { code: 524 } });
    expect(h.events).toHaveLength(0);
  });

  test('a client that leaves mid-stream: the upstream call is aborted, the partial answer is recorded', async () => {
    let release: (() => void) | undefined;
    const gate = new Promise<void>((r) => (release = r));
    h.fleet.fakes.deepinfra!.setSticky({ beforeEvent: (i) => (i < 3 ? Promise.resolve() : gate) });
    let seen = 0;
    await stream({}, (_data, req) => {
      if (++seen === 2) req.destroy();
    });
    const { aborted } = await h.fleet.fakes.deepinfra!.calls[0]!.ended;
    release?.();
    expect(aborted).toBe(true);
    await until('the usage record', () => h.events.length === 1);
    expect(h.events[0]).toMatchObject({
      streamed: true,
      status: 'ok',
      nativeFinishReason: 'client_disconnected',
      usageEstimated: true,
    });
    expect(h.events[0]!.tokensCompletion).toBeGreaterThan(0);
  });
});
