/**
 * The chat adapters against the fake upstreams over real HTTP (undici): the fakes' SSE arrives in
 * separate pieces, as a real upstream's does, and the translators are fed the pieces as they come.
 */
import { request } from 'undici';
import type { ChatBody } from '../../src/chat/types';
import { chatAdapterFor } from '../../src/providers/chat-registry';
import { chatViewOf } from '../../src/chat/view';
import type { ChatStream } from '../../src/providers/chat-types';
import { anthropicChatWire, openaiChatWire } from '../fakes/chat-wires';
import { startFake, type FakeUpstream } from '../fakes/server';
import { openaiWire } from '../fakes/wires';
import { HEAD, chatEndpoint, chatJob, keyOf } from '../helpers/chat-endpoint';
import { countTokens } from '../../src/usage/tokens';

let openai: FakeUpstream;
let anthropic: FakeUpstream;

beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startFake(openaiWire, openaiChatWire), startFake(null, anthropicChatWire)]);
});
afterEach(() => {
  openai.reset();
  anthropic.reset();
});
afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close()]);
});

const WIRES = {
  openai: () => ({ fake: openai, adapter: chatAdapterFor('openai'), view: chatViewOf(chatAdapterFor('openai')) }),
  anthropic: () => ({
    fake: anthropic,
    adapter: chatAdapterFor('anthropic'),
    view: chatViewOf(chatAdapterFor('anthropic')),
  }),
};
type WireName = keyof typeof WIRES;

const ask = (text: string, over: Partial<ChatBody> = {}): ChatBody => ({
  model: 'm',
  messages: [{ role: 'user', content: text }],
  ...over,
});
const weather: ChatBody['tools'] = [
  {
    type: 'function',
    function: { name: 'weather', parameters: { type: 'object', properties: { text: { type: 'string' } } } },
  },
];

/** Send `body` through `wire`'s adapter to its fake. */
function send(wire: WireName, body: ChatBody, stream: boolean, signal?: AbortSignal) {
  const { fake, adapter } = WIRES[wire]();
  const ep = chatEndpoint({}, wire, `${fake.origin}/v1`);
  const req = adapter.buildRequest(chatJob(body, stream), ep, keyOf(ep));
  return request(req.url, { method: 'POST', headers: req.headers, body: req.body, signal });
}

/** Stream `body` and feed the translator each piece as it arrives. */
async function streamed(
  wire: WireName,
  body: ChatBody,
): Promise<{ s: ChatStream; events: string[]; pieces: number; status: number; cut: boolean }> {
  const res = await send(wire, body, true);
  const s = WIRES[wire]().view.createStream(HEAD);
  const events: string[] = [];
  let pieces = 0;
  let cut = false;
  try {
    for await (const piece of res.body) {
      pieces++;
      events.push(...s.push(piece as Buffer));
    }
  } catch {
    cut = true;
  }
  events.push(...s.end());
  return { s, events, pieces, status: res.statusCode, cut };
}

const deltas = (events: string[]) =>
  events.map(
    (e) =>
      (
        JSON.parse(e.slice('data: '.length)) as {
          choices: Array<{ delta: { content?: string; tool_calls?: Array<{ function: { arguments?: string } }> } }>;
        }
      ).choices[0]!.delta,
  );
const contentOf = (events: string[]) =>
  deltas(events)
    .map((d) => d.content ?? '')
    .join('');
const argumentsOf = (events: string[]) =>
  deltas(events)
    .flatMap((d) => d.tool_calls ?? [])
    .map((t) => t.function.arguments ?? '')
    .join('');

describe.each(['openai', 'anthropic'] as const)('%s chat wire over HTTP', (wire) => {
  it('answers a whole request with the echo and its usage', async () => {
    const res = await send(wire, ask('hello there friend'), false);
    expect(res.statusCode).toBe(200);
    const parsed = WIRES[wire]().view.parseResponse(Buffer.from(await res.body.arrayBuffer()));
    expect(parsed?.choices[0]?.message.content).toBe('echo: hello there friend');
    expect(parsed?.finishReason).toBe('stop');
    expect(parsed?.usage).toMatchObject({ promptTokens: 3, completionTokens: 4 });
    expect(WIRES[wire]().fake.calls[0]!.path).toBe(wire === 'openai' ? '/v1/chat/completions' : '/v1/messages');
  });

  it('streams in separate pieces; the translator reassembles the text and reads usage from the last event', async () => {
    const { s, events, pieces } = await streamed(wire, ask('one two three four'));
    expect(pieces).toBeGreaterThan(3);
    expect(contentOf(events)).toBe('echo: one two three four');
    expect(events.some((e) => e.includes('[DONE]'))).toBe(false);
    expect(s.started && s.done).toBe(true);
    expect(s.error).toBeNull();
    expect(s.summary()).toMatchObject({ usage: { promptTokens: 4, completionTokens: 5 }, finishReason: 'stop' });
  });

  it('streams a tool call whose arguments come in several events', async () => {
    const { s, events } = await streamed(wire, ask('Paris today', { tools: weather }));
    expect(JSON.parse(argumentsOf(events))).toEqual({ text: 'Paris today' });
    expect(s.summary()).toMatchObject({ toolCalls: 1, finishReason: 'tool_calls' });
  });

  it('cuts at max_tokens words with finish reason length', async () => {
    const { s, events } = await streamed(wire, ask('a b c d e f', { max_tokens: 3 }));
    expect(contentOf(events)).toBe('echo: a b');
    expect(s.summary().finishReason).toBe('length');
  });

  it('sends no usage when the fake reports none; the text is still there to count', async () => {
    WIRES[wire]().fake.reportUsage = false;
    const { s } = await streamed(wire, ask('count me'));
    expect(s.summary().usage).toBeNull();
    expect(s.summary().generatedTokens()).toBe(countTokens(['echo: count me']));
  });

  it('a cut after N events leaves the stream not done', async () => {
    const { fake } = WIRES[wire]();
    fake.queue({ cutAfterEvents: 3 });
    const { s, cut } = await streamed(wire, ask('one two three four five'));
    expect(cut).toBe(true);
    expect(s.done).toBe(false);
    expect(s.summary().usage === null || s.summary().finishReason === null).toBe(true);
    expect(await fake.calls[0]!.ended).toEqual({ aborted: true });
  });

  it('an error event after N events becomes the stream’s error', async () => {
    WIRES[wire]().fake.queue({ errorAfterEvents: 5 });
    const { s, events } = await streamed(wire, ask('one two three four five'));
    expect(s.started).toBe(true);
    expect(s.done).toBe(false);
    expect(s.error).toEqual(
      wire === 'openai'
        ? { code: 502, message: 'Provider returned error' }
        : { code: 529, message: 'Provider returned error' },
    );
    expect(contentOf(events).length).toBeGreaterThan(0);
  });

  it('a status before the first byte is an ordinary HTTP error', async () => {
    WIRES[wire]().fake.queue({
      status: 529,
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
    const res = await send(wire, ask('x'), true);
    expect(res.statusCode).toBe(529);
    await res.body.dump();
  });

  it('records that a client which left mid-stream aborted the call', async () => {
    const { fake } = WIRES[wire]();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fake.queue({ beforeEvent: (i) => (i < 5 ? Promise.resolve() : gate) });
    const controller = new AbortController();
    const res = await send(wire, ask('one two three four'), true, controller.signal);
    const s = WIRES[wire]().view.createStream(HEAD);
    for await (const piece of res.body) {
      s.push(piece as Buffer);
      if (s.started) break;
    }
    controller.abort();
    expect(await fake.calls[0]!.ended).toEqual({ aborted: true });
    release();
  });
});

describe('fake routing', () => {
  it('serves embeddings beside chat on an OpenAI fake, and 404 where a fake has no such wire', async () => {
    const emb = await request(`${openai.origin}/v1/embeddings`, {
      method: 'POST',
      body: JSON.stringify({ model: 'e', input: ['abc'] }),
    });
    expect(emb.statusCode).toBe(200);
    expect(((await emb.body.json()) as { data: unknown[] }).data).toHaveLength(1);
    const none = await request(`${anthropic.origin}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(none.statusCode).toBe(404);
    await none.body.dump();
  });

  it('paces events eventIntervalMs apart', async () => {
    openai.queue({ eventIntervalMs: 30 });
    const started = performance.now();
    const { events } = await streamed('openai', ask('a b'));
    expect(contentOf(events)).toBe('echo: a b');
    // role + 3 words + finish + usage + [DONE] = 7 events, 6 intervals.
    expect(performance.now() - started).toBeGreaterThanOrEqual(6 * 30 - 5);
  });
});
