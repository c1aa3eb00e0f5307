/**
 * POST /responses on a provider that serves OpenAI's own `/responses` (`responses: true`, as the
 * shipped OpenAI provider does): the body goes to `/v1/responses` without the gateway's fields and
 * hosted tools, with `store: false` and the output bound capped; answers pass through relabelled
 * (the gateway's id, model and provider, the billed usage with its cost), OpenAI's own items and
 * events as they came; an answer without usage is billed by the gateway's count (marked
 * estimated); an error mid-stream ends with `response.failed`; a failure before any content
 * falls back, also to another format; `OPENAI_RESPONSES=false` turns the pass-through off.
 */
import request from 'supertest';
import { request as undiciRequest } from 'undici';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { openaiResponsesWire } from '../fakes/responses-wire';
import { until } from '../helpers/eventually';
import { bearer } from '../helpers/gateway';

const MINI = 'openai/gpt-4.1-mini';
const SONNET = 'anthropic/claude-sonnet-4';

type Obj = Record<string, unknown>;
interface Event {
  event: string;
  data: { type: string; sequence_number: number; response?: Obj; delta?: string; [k: string]: unknown };
}

let h: GatewayHarness;
beforeAll(async () => {
  h = await startGatewayHarness({ listen: true, overrides: { breaker: { failureThreshold: 1000 } } });
});
afterAll(() => h.close());
beforeEach(() => {
  h.fleet.resetAll();
  h.events.length = 0;
});

/** POST /responses: the status, headers and body text. */
async function post(body: Obj): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const res = await undiciRequest(`${h.baseUrl}/responses`, {
    method: 'POST',
    headers: { authorization: bearer(h.key), 'content-type': 'application/json' },
    body: JSON.stringify({ model: MINI, ...body }),
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

/** A stream's events (comments, the keep-alives, left out). */
function eventsOf(text: string): Event[] {
  return text
    .split('\n\n')
    .filter((raw) => raw.trim() !== '' && !raw.startsWith(':'))
    .map((raw) => {
      const lines = raw.split('\n');
      const data = lines.find((l) => l.startsWith('data: '))!.slice(6);
      return {
        event: lines.find((l) => l.startsWith('event: '))?.slice(7) ?? '',
        data: JSON.parse(data) as Event['data'],
      };
    });
}

const sent = () => h.fleet.fakes.openai!.calls[0]!;
const record = async () => {
  await until('the usage record', () => h.events.length === 1);
  return h.events[0]!;
};

test('a whole answer: sent to /v1/responses as OpenAI takes it, answered as it came but for the gateway members', async () => {
  const res = await post({
    input: 'hello there',
    instructions: 'be brief',
    max_output_tokens: 10_000_000,
    session_id: 'sess-1',
    provider: { allow_fallbacks: true },
    models: [MINI],
    client_metadata: { a: 'b' },
    reasoning: { max_tokens: 100 },
    metadata: { k: 'v' },
  });
  expect(res.status).toBe(200);
  const call = sent();
  expect(call.path).toBe('/v1/responses');
  expect(call.body).toEqual({
    model: 'gpt-4.1-mini',
    input: 'hello there',
    instructions: 'be brief',
    metadata: { k: 'v' },
    max_output_tokens: 32768, // the endpoint's maximum output (config/chat-models.yaml)
    store: false,
  });
  const body = JSON.parse(res.text) as Obj;
  const event = await record();
  expect(body).toMatchObject({
    id: `resp_${event.id}`,
    object: 'response',
    model: MINI,
    provider: 'OpenAI',
    status: 'completed',
    instructions: 'be brief',
    output: [{ id: 'msg_fake_1', type: 'message', content: [{ type: 'output_text', text: 'echo: hello there' }] }],
  });
  const usage = body.usage as { input_tokens: number; output_tokens: number; cost: number };
  expect(usage).toMatchObject({ input_tokens: 4, output_tokens: 3, total_tokens: 7 });
  expect(event).toMatchObject({
    apiType: 'responses',
    model: MINI,
    upstreamId: 'resp_fake_1',
    tokensPrompt: 4,
    tokensCompletion: 3,
    finishReason: 'stop',
    streamed: false,
    sessionId: 'sess-1',
    costUsd: usage.cost,
  });
  expect(usage.cost).toBeGreaterThan(0);
});

test("a stream: OpenAI's events as they came, the response objects relabelled, the last with the billed usage", async () => {
  const body = { model: 'gpt-4.1-mini', input: 'stream these words', stream: true, store: false };
  const upstream = eventsOf(openaiResponsesWire.events(body, { reportUsage: true }).join(''));
  const res = await post({ input: 'stream these words', stream: true });
  expect(res.status).toBe(200);
  expect(sent().body).toMatchObject({ stream: true, store: false });
  const events = eventsOf(res.text);
  expect(events.map((e) => e.data.type)).toEqual(upstream.map((e) => e.data.type));
  expect(events.map((e) => e.event)).toEqual(events.map((e) => e.data.type));
  expect(events.map((e) => e.data.sequence_number)).toEqual(upstream.map((e) => e.data.sequence_number));
  const gen = (await record()).id;
  for (const e of events.filter((x) => x.data.response))
    expect(e.data.response).toMatchObject({ id: `resp_${gen}`, model: MINI, provider: 'OpenAI' });
  // Everything but the response objects is byte for byte what OpenAI sent.
  for (const [i, e] of events.entries()) if (!e.data.response) expect(e.data).toEqual(upstream[i]!.data);
  const last = events.at(-1)!.data;
  expect(last.type).toBe('response.completed');
  expect(last.response).toMatchObject({ status: 'completed', usage: { input_tokens: 3, output_tokens: 4 } });
  expect((last.response!.usage as { cost: number }).cost).toBe(h.events[0]!.costUsd);
  expect(h.events[0]).toMatchObject({ streamed: true, tokensCompletion: 4, finishReason: 'stop' });
});

test.each([false, true])(
  'an answer without usage is billed by the gateway’s count, marked estimated (stream: %s)',
  async (stream) => {
    h.fleet.fakes.openai!.reportUsage = false;
    const res = await post({ input: 'count these words please', stream });
    expect(res.status).toBe(200);
    const event = await record();
    expect(event).toMatchObject({ usageEstimated: true, status: 'ok' });
    expect(event.tokensPrompt).toBeGreaterThan(0);
    expect(event.tokensCompletion).toBeGreaterThan(0);
    const response = stream ? eventsOf(res.text).at(-1)!.data.response! : (JSON.parse(res.text) as Obj);
    expect(response.usage).toMatchObject({ output_tokens: event.tokensCompletion, cost: event.costUsd });
  },
);

test.each([false, true])('a tool call and a cut answer are read from the output (stream: %s)', async (stream) => {
  const tools = [{ type: 'function', name: 'lookup', parameters: { type: 'object' } }, { type: 'web_search' }];
  const res = await post({ input: 'find it', tools, stream });
  expect(res.status).toBe(200);
  expect(res.headers['x-switchyard-tools-left-out']).toBe('web_search');
  expect(sent().body.tools).toEqual([tools[0]]);
  expect(await record()).toMatchObject({ toolCalls: 1, finishReason: 'tool_calls' });
  h.events.length = 0;
  h.fleet.resetAll();
  const cut = await post({ input: 'one two three four five', max_output_tokens: 2, stream });
  const response = stream ? eventsOf(cut.text).at(-1)!.data.response! : (JSON.parse(cut.text) as Obj);
  expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  expect(await record()).toMatchObject({ finishReason: 'length', nativeFinishReason: 'max_output_tokens' });
});

test('an error event after the first content ends the stream with response.failed, numbered on', async () => {
  h.fleet.fakes.openai!.setSticky({ errorAfterEvents: 5 });
  const res = await post({ input: 'hello there my friend', stream: true });
  const events = eventsOf(res.text);
  const last = events.at(-1)!.data;
  expect(last.type).toBe('response.failed');
  expect(last.response).toMatchObject({ status: 'failed', model: MINI, error: { code: 'server_error' } });
  expect(JSON.stringify(last)).not.toContain('fake failure'); // the upstream's own text stays at the gateway
  expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_e, i) => i));
  expect(await record()).toMatchObject({ status: 'error', finishReason: 'error' });
});

test.each([false, true])('a failure before any content falls back to another format (stream: %s)', async (stream) => {
  h.fleet.fakes.openai!.setSticky({ status: 503 });
  h.fleet.fakes.azure!.setSticky({ status: 503 });
  const res = await post({ models: [MINI, SONNET], input: 'hello there', stream });
  expect(res.status).toBe(200);
  const response = stream ? eventsOf(res.text).at(-1)!.data.response! : (JSON.parse(res.text) as Obj);
  expect(response).toMatchObject({ status: 'completed', model: SONNET, provider: 'Anthropic' });
  expect(h.fleet.fakes.anthropic!.calls).toHaveLength(1);
});

test("an upstream's 400 is the client's, in the door's envelope", async () => {
  h.fleet.fakes.openai!.queue({
    status: 400,
    body: { error: { message: 'bad input item', type: 'invalid_request_error' } },
  });
  const res = await post({ input: 'x', provider: { only: ['openai'] } });
  expect(res.status).toBe(400);
  expect(JSON.parse(res.text)).toMatchObject({ error: { code: 400 } });
});

test('responses: false (OPENAI_RESPONSES=false): the door writes chat completions for OpenAI instead', async () => {
  const off = await startGatewayHarness({ providerExtras: { OPENAI: { responses: false } } });
  try {
    const res = await request(off.gw.app)
      .post('/api/v1/responses')
      .set('Authorization', bearer(off.key))
      .send({ model: MINI, input: 'hello there' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ model: MINI, output: [{ type: 'message' }] });
    expect(off.fleet.fakes.openai!.calls.map((c) => c.path)).toEqual(['/v1/chat/completions']);
  } finally {
    await off.close();
  }
});
