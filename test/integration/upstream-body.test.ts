/**
 * The upstream body copies the members of the client's body it passes on unchanged, as the
 * client wrote them (src/providers/upstream-json.ts): on the chat door to an OpenAI-format
 * upstream and on the Messages door to Anthropic, also for a gzip-encoded body. The gateway's own
 * members are still its own (the provider's model name, the stream flag), a body in another
 * charset or one the gateway changed (a file part sent inline) is serialised again, and what the
 * upstream reads means the same as the client's request; the Responses door's body reaches
 * OpenAI's `/responses` the same way. Members the body gave up once sent
 * (src/http/raw-json-body.ts, releaseRawMembers) are read again, as they were, by a fallback
 * attempt, by an adapter of another format, and by the exact count of an answer without usage.
 */
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { request as undiciRequest } from 'undici';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { bearer } from '../helpers/gateway';
import { listenApp } from '../helpers/listening';

let h: GatewayHarness;
let gateway: Awaited<ReturnType<typeof listenApp>>;
beforeAll(async () => {
  h = await startGatewayHarness({});
  gateway = await listenApp(h.gw.app);
});
afterAll(async () => {
  await gateway.close();
  await h.close();
});
beforeEach(() => {
  h.fleet.resetAll();
  h.fleet.fakes.deepinfra!.reportUsage = true;
});

/** POST `bytes` as they are (supertest would serialise a Buffer sent as JSON): the status and the answer's text. */
async function post(path: string, headers: Record<string, string>, bytes: Buffer): Promise<[number, string]> {
  const res = await undiciRequest(`${gateway.baseUrl}${path}`, { method: 'POST', headers, body: bytes });
  const text = await res.body.text();
  return [res.statusCode, res.statusCode === 200 ? '' : text];
}

/** Members as a client may write them: spacing, `\u` escapes, an escaped slash. */
const MESSAGES = '[ {"role":"user",\n "content":"caf\\u00e9 \\/ \\"quoted\\" \\ud83d\\ude00"} ]';
const TOOLS =
  '[{"type":"function","function":{"name":"read_file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}]';

const JSON_AUTH = () => ({ authorization: bearer(h.key), 'content-type': 'application/json' });

const sent = (slug: string) => {
  const call = h.fleet.fakes[slug]!.calls[0];
  if (!call) throw new Error(`no call to ${slug}`);
  return call;
};

test('chat: messages and tools reach an OpenAI-format upstream as the client wrote them', async () => {
  const text = `{"model":"openai/gpt-4o","messages":${MESSAGES},"tools":${TOOLS},"metadata":{"k":"v"},"max_tokens":20}`;
  expect(await post('/chat/completions', JSON_AUTH(), Buffer.from(text))).toEqual([200, '']);
  const call = sent('openai');
  expect(call.text).toContain(`"messages":${MESSAGES}`);
  expect(call.text).toContain(`"tools":${TOOLS}`);
  // The gateway's members: the upstream's model name; its own `metadata` stays at the gateway.
  expect(call.body).toMatchObject({ model: 'gpt-4o', max_tokens: 20 });
  expect(call.body).not.toHaveProperty('metadata');
  expect(call.body.messages).toEqual(JSON.parse(MESSAGES));
});

test('messages: a gzip-encoded body reaches Anthropic with its messages as written, streamed', async () => {
  const text = `{"model":"anthropic/claude-sonnet-4.5","max_tokens":30,"stream":true,"messages":${MESSAGES}}`;
  const headers = { 'x-api-key': h.key, 'content-type': 'application/json', 'content-encoding': 'gzip' };
  expect(await post('/messages', headers, gzipSync(text))).toEqual([200, '']);
  const call = sent('anthropic');
  expect(call.text).toContain(`"messages":${MESSAGES}`);
  expect(call.body).toMatchObject({ model: 'claude-sonnet-4-5-20250929', max_tokens: 30, stream: true });
});

test('a body in UTF-16 is serialised again, and means the same', async () => {
  const text = `{"model":"openai/gpt-4o","messages":${MESSAGES}}`;
  const headers = { authorization: bearer(h.key), 'content-type': 'application/json; charset=utf-16le' };
  expect(await post('/chat/completions', headers, Buffer.from(text, 'utf16le'))).toEqual([200, '']);
  const call = sent('openai');
  expect(call.text).not.toContain(MESSAGES);
  expect(call.body.messages).toEqual(JSON.parse(MESSAGES));
});

test('a file part the gateway sends inline is in the upstream body, not the client bytes', async () => {
  const upload = await request(h.gw.app)
    .post('/api/v1/files')
    .set('Authorization', bearer(h.key))
    .attach('file', Buffer.from('%PDF-1.7\n'), 'a.pdf');
  const part = `{"type":"file","file":{"file_id":"${upload.body.id as string}"}}`;
  const text = `{"model":"openai/gpt-4o","messages":[{"role":"user","content":[${part}]}]}`;
  expect(await post('/chat/completions', JSON_AUTH(), Buffer.from(text))).toEqual([200, '']);
  const call = sent('openai');
  expect(call.text).not.toContain('file_id');
  expect(call.text).toContain(Buffer.from('%PDF-1.7\n').toString('base64'));
});

/** Members of an agent's size (each over the 4 KB a body gives up once sent), written with escapes. */
const BIG_MESSAGES = `[{"role":"system","content":"${'Follow the repo\\u2019s rules \\/ '.repeat(200)}"},{"role":"user","content":"fix it"}]`;
const BIG_TOOLS = `[${Array.from({ length: 40 }, (_, i) => `{"type":"function","function":{"name":"tool_${i}","description":"${'d '.repeat(40)}","parameters":{"type":"object"}}}`).join(',')}]`;
const LLAMA = 'meta-llama/llama-3.3-70b-instruct';

test.each([false, true])(
  'stream %s: a fallback attempt sends the members given up after the first as the client wrote them',
  async (stream) => {
    h.fleet.fakes.deepinfra!.setSticky({ status: 500 });
    const text = `{"model":"${LLAMA}","stream":${stream},"messages":${BIG_MESSAGES},"tools":${BIG_TOOLS}}`;
    expect(await post('/chat/completions', JSON_AUTH(), Buffer.from(text))).toEqual([200, '']);
    for (const slug of ['deepinfra', 'groq']) {
      expect(sent(slug).text).toContain(`"messages":${BIG_MESSAGES}`);
      expect(sent(slug).text).toContain(`"tools":${BIG_TOOLS}`);
    }
  },
);

test('the next model, of another wire format, reads the given-up members again', async () => {
  for (const p of ['deepinfra', 'groq', 'together', 'fireworks']) h.fleet.fakes[p]!.setSticky({ status: 500 });
  const text = `{"models":["${LLAMA}","anthropic/claude-3.5-haiku"],"messages":${BIG_MESSAGES},"max_tokens":50}`;
  expect(await post('/chat/completions', JSON_AUTH(), Buffer.from(text))).toEqual([200, '']);
  const [system, user] = JSON.parse(BIG_MESSAGES) as { content: string }[];
  expect(sent('anthropic').body).toMatchObject({ system: [{ type: 'text', text: system!.content }] });
  expect(sent('anthropic').body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: user!.content }] }]);
});

test('an upstream that reports no usage: a body that gave its members up is counted as one that kept them', async () => {
  h.fleet.fakes.deepinfra!.reportUsage = false;
  const text = `{"model":"${LLAMA}","messages":${BIG_MESSAGES},"tools":${BIG_TOOLS}}`;
  const counted = async (bytes: Buffer, charset: string) => {
    const res = await undiciRequest(`${gateway.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: bearer(h.key), 'content-type': `application/json; charset=${charset}` },
      body: bytes,
    });
    const answer = (await res.body.json()) as { usage: { prompt_tokens: number } };
    return [res.statusCode, answer.usage.prompt_tokens];
  };
  // UTF-16 keeps no bytes, so nothing is given up; UTF-8 gives the members up once sent.
  const [status, kept] = await counted(Buffer.from(text, 'utf16le'), 'utf-16le');
  expect(status).toBe(200);
  expect(await counted(Buffer.from(text), 'utf-8')).toEqual([200, kept]);
  expect(kept).toBeGreaterThan(1000);
});

/** A Responses request's long instructions and function tools, written with odd spacing and escapes. */
const INSTRUCTIONS = `"${'Work in the repo \\u2014 carefully. '.repeat(60)}"`;
const FN_TOOLS = `[ ${Array.from({ length: 3 }, (_, i) => `{"type": "function", "name": "fn_${i}", "parameters": {"type": "object"}, "strict": false}`).join(' , ')} ]`;

/** A model whose providers have no `/responses`: the Responses door writes its answers itself. */
const TRANSLATED = 'meta-llama/llama-3.3-70b-instruct';

test.each([false, true])(
  'stream %s: the Responses door repeats its request’s tools and instructions as the client wrote them',
  async (stream) => {
    const text = `{"model":"${TRANSLATED}","stream":${stream},"instructions":${INSTRUCTIONS},"tools":${FN_TOOLS},"input":"hi"}`;
    const res = await undiciRequest(`${gateway.baseUrl}/responses`, {
      method: 'POST',
      headers: JSON_AUTH(),
      body: text,
    });
    expect(res.statusCode).toBe(200);
    const answer = await res.body.text();
    const objects = stream
      ? answer
          .split('\n')
          .filter((l) => l.startsWith('data: ') && l.includes('"response":{'))
          .map((l) => (JSON.parse(l.slice(6)) as { response: Record<string, unknown> }).response)
      : [JSON.parse(answer) as Record<string, unknown>];
    // Whole: the answer; streamed: response.created, response.in_progress and response.completed.
    expect(objects).toHaveLength(stream ? 3 : 1);
    expect(answer.split(`"tools":${FN_TOOLS}`)).toHaveLength(objects.length + 1);
    expect(answer.split(`"instructions":${INSTRUCTIONS}`)).toHaveLength(objects.length + 1);
    for (const o of objects) {
      expect(o).toMatchObject({ object: 'response', model: expect.any(String), tools: JSON.parse(FN_TOOLS) });
      expect(o.instructions).toBe(JSON.parse(INSTRUCTIONS));
      expect(Object.keys(o).slice(0, 6)).toEqual(['id', 'object', 'created_at', 'completed_at', 'model', 'provider']);
    }
  },
);

test('a Responses request with a hosted tool repeats the function tools alone, serialised', async () => {
  const tools = `[{"type":"web_search"},${FN_TOOLS.slice(1)}`;
  const text = `{"model":"${TRANSLATED}","tools":${tools},"input":"hi"}`;
  const res = await undiciRequest(`${gateway.baseUrl}/responses`, { method: 'POST', headers: JSON_AUTH(), body: text });
  expect(res.statusCode).toBe(200);
  const answer = (await res.body.json()) as { tools: unknown[] };
  expect(answer.tools).toEqual(JSON.parse(FN_TOOLS));
});

test.each([false, true])(
  'stream %s: the Responses door sends OpenAI its input, tools and instructions as the client wrote them',
  async (stream) => {
    const input = '[ {"role":"user","content":"caf\\u00e9 \\/ hi"} ]';
    const text = `{"model":"openai/gpt-4.1-mini","stream":${stream},"instructions":${INSTRUCTIONS},"tools":${FN_TOOLS},"input":${input},"session_id":"s1","provider":{"allow_fallbacks":false}}`;
    const res = await undiciRequest(`${gateway.baseUrl}/responses`, {
      method: 'POST',
      headers: JSON_AUTH(),
      body: text,
    });
    expect(res.statusCode).toBe(200);
    await res.body.text();
    const call = sent('openai');
    expect(call.path).toBe('/v1/responses');
    for (const member of [`"instructions":${INSTRUCTIONS}`, `"tools":${FN_TOOLS}`, `"input":${input}`])
      expect(call.text).toContain(member);
    // The gateway's members: the provider's model name, nothing stored upstream, its own fields kept back.
    expect(call.body).toMatchObject({ model: 'gpt-4.1-mini', store: false });
    expect(call.body).not.toHaveProperty('session_id');
    expect(call.body).not.toHaveProperty('provider');
    expect(call.body.stream === true).toBe(stream);
  },
);
