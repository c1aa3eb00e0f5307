/**
 * The chat benchmarks' own servers with an agent turn (bench/lib/agent-request.js), as child
 * processes on loopback: the chat floor (bench/chat-floor.js) sends upstream what the gateway
 * sends (tools and all), and the fake upstream (bench/chat-upstream.js) answers a 1 MB turn whole
 * and streamed, its usage sized to the prompt, and the Messages and Responses turns in their
 * formats as the official SDKs read them, its response objects repeating the Responses turn's
 * members as OpenAI's do and as the gateway's Responses door writes them.
 */
import http from 'node:http';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { echoOf } from '../../src/responses/echo';
import { responseJson } from '../../src/responses/response';
import type { ResponsesBody } from '../../src/responses/types';
import {
  AGENT_MESSAGES_UPSTREAM_MODEL,
  AGENT_UPSTREAM_MODEL,
  agentGatewayBody,
  agentMessagesBody,
  agentMessagesFields,
  agentResponsesBody,
  agentResponsesFields,
  agentUpstreamBody,
} from '../lib/agent-request';
import { chatUpstreamBody } from '../lib/chat-request';

const children: ChildProcess[] = [];

async function start(script: string, env: Record<string, string> = {}): Promise<number> {
  const child = spawn(process.execPath, [path.join(__dirname, '..', script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      const m = /READY (\d+)/.exec(chunk.toString());
      if (m) resolve(Number(m[1]));
    });
  });
}

async function post(url: string, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, text: await res.text() };
}

const dataEvents = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('data:'));

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

describe('chat floor', () => {
  it('sends upstream the members of an agent turn that the gateway sends', async () => {
    const received: unknown[] = [];
    const capture = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
    try {
      const port = await start('chat-floor.js', {
        UPSTREAM: `http://127.0.0.1:${(capture.address() as AddressInfo).port}`,
      });
      for (const stream of [false, true]) {
        const { status } = await post(
          `http://127.0.0.1:${port}/api/v1/chat/completions`,
          agentGatewayBody(stream, 150),
        );
        expect(status).toBe(200);
        expect(received.pop()).toEqual(JSON.parse(agentUpstreamBody(stream, 150)));
        // The Messages door's turn: Anthropic's members, the provider's model name.
        expect((await post(`http://127.0.0.1:${port}/api/v1/messages`, agentMessagesBody(stream, false))).status).toBe(
          200,
        );
        expect(received.pop()).toEqual(JSON.parse(agentMessagesBody(stream, true)));
        // The Responses door's turn: the Responses members, the provider's model name.
        const responses = await post(`http://127.0.0.1:${port}/api/v1/responses`, agentResponsesBody(stream, false));
        expect(responses.status).toBe(200);
        expect(received.pop()).toEqual(JSON.parse(agentResponsesBody(stream, true)));
      }
    } finally {
      capture.closeAllConnections();
      await new Promise((resolve) => capture.close(resolve));
    }
  }, 20_000);
});

describe('chat upstream', () => {
  let url: string;
  beforeAll(async () => {
    url = `http://127.0.0.1:${await start('chat-upstream.js')}/v1/chat/completions`;
  });

  it("answers a 1 MB agent turn whole, with its prompt's size in the usage", async () => {
    const body = agentUpstreamBody(false, 1024);
    const { status, text } = await post(url, body);
    expect(status).toBe(200);
    const json = JSON.parse(text) as {
      choices: Array<{ message: { content: string }; finish_reason: string }>;
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    expect(json.choices[0]?.message.content.length).toBeGreaterThan(1000);
    expect(json.choices[0]?.finish_reason).toBe('stop');
    expect(json.usage).toMatchObject({ prompt_tokens: Math.ceil(Buffer.byteLength(body) / 4), completion_tokens: 500 });
  });

  it('streams a 1 MB agent turn: 200 events, usage last, then [DONE]', async () => {
    const { status, text } = await post(url, agentUpstreamBody(true, 1024));
    expect(status).toBe(200);
    const events = dataEvents(text);
    expect(events).toHaveLength(201);
    expect(events[200]).toBe('data: [DONE]');
    expect(JSON.parse(events[199]?.slice(5) ?? '')).toMatchObject({ choices: [], usage: { completion_tokens: 197 } });
  });

  it('leaves the usage chunk out unless a stream asks for it, and refuses a body without messages', async () => {
    const noUsage = JSON.stringify({ ...JSON.parse(chatUpstreamBody(true)), stream_options: undefined });
    expect(dataEvents((await post(url, noUsage)).text)).toHaveLength(200);
    expect((await post(url, JSON.stringify({ model: 'm', messages: [] }))).status).toBe(400);
    expect((await post(url, 'not json')).status).toBe(400);
  });
});

describe('chat upstream, Messages', () => {
  let client: Anthropic;
  beforeAll(async () => {
    const port = await start('chat-upstream.js');
    client = new Anthropic({ apiKey: 'sk-bench', baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 });
  });
  const turn = () =>
    ({
      ...agentMessagesFields(),
      model: AGENT_MESSAGES_UPSTREAM_MODEL,
    }) as unknown as Anthropic.MessageCreateParamsNonStreaming;

  it("answers an agent turn whole as Anthropic's SDK reads a message, its prompt's size in the usage", async () => {
    // A timeout of its own: the SDK refuses a whole answer of 32,000 tokens without one.
    const message = await client.messages.create(turn(), { timeout: 30_000 });
    expect(message.content[0]).toMatchObject({ type: 'text' });
    expect(message.stop_reason).toBe('end_turn');
    const bytes = Buffer.byteLength(JSON.stringify(turn()));
    expect(message.usage).toMatchObject({ input_tokens: Math.ceil(bytes / 4), output_tokens: 500 });
  });

  it("streams it as Anthropic's SDK reads a stream: the text in 197 deltas, the usage in message_delta", async () => {
    const stream = client.messages.stream(turn());
    let deltas = 0;
    stream.on('text', () => void deltas++);
    const message = await stream.finalMessage();
    expect(deltas).toBe(197);
    expect(message.usage.output_tokens).toBe(197);
    expect(message.stop_reason).toBe('end_turn');
  });
});

describe('chat upstream, Responses', () => {
  let client: OpenAI;
  let port: number;
  beforeAll(async () => {
    port = await start('chat-upstream.js');
    client = new OpenAI({ apiKey: 'sk-bench', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
  });
  const turn = () =>
    ({
      model: AGENT_UPSTREAM_MODEL,
      ...agentResponsesFields(),
    }) as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming;

  it("answers an agent turn whole as OpenAI's SDK reads a response, its prompt's size in the usage", async () => {
    const response = await client.responses.create(turn());
    expect(response.status).toBe('completed');
    expect(response.output_text.length).toBeGreaterThan(1000);
    const bytes = Buffer.byteLength(JSON.stringify(turn()));
    expect(response.usage).toMatchObject({ input_tokens: Math.ceil(bytes / 4), output_tokens: 500 });
    // The request's members, repeated as OpenAI's API repeats them.
    expect(response.instructions).toBe(turn().instructions);
    expect(response.tools).toEqual(turn().tools);
    expect(response).toMatchObject({ tool_choice: 'auto', temperature: 0, max_output_tokens: 32000, store: false });
  });

  it("repeats the members the gateway's Responses door writes, in OpenAI's order", async () => {
    const { text } = await post(`http://127.0.0.1:${port}/v1/responses`, agentResponsesBody(false, true));
    const raw = JSON.parse(text) as Record<string, unknown>;
    // OpenAI's order: id, object, created_at, status, then by name, metadata last.
    const rest = Object.keys(raw).slice(4, -1);
    expect(Object.keys(raw).slice(0, 4)).toEqual(['id', 'object', 'created_at', 'status']);
    expect(rest).toEqual([...rest].sort());
    expect(Object.keys(raw).at(-1)).toBe('metadata');
    // The gateway's members (but the provider it names), and its echo of the same turn.
    const body = JSON.parse(agentResponsesBody(false, false)) as ResponsesBody;
    const echo = JSON.parse(`{${echoOf(body)}}`) as Record<string, unknown>;
    const head = { id: 'gen-1', model: AGENT_UPSTREAM_MODEL, provider: 'OpenAI', created: 1 };
    const gateway = JSON.parse(
      responseJson(head, echoOf(body), { status: 'completed', output: [], usage: {} }),
    ) as object;
    expect(Object.keys(raw).sort()).toEqual(
      Object.keys(gateway)
        .filter((k) => k !== 'provider')
        .sort(),
    );
    expect(raw).toMatchObject(echo);
    expect(raw).toMatchObject({ model: AGENT_UPSTREAM_MODEL, completed_at: raw.created_at, background: false });
  });

  it("streams it as OpenAI's SDK reads a stream: numbered events, the text in 197 deltas, the usage at the end", async () => {
    const stream = await client.responses.create({ ...turn(), stream: true });
    const types: string[] = [];
    let text = '';
    let completed: OpenAI.Responses.Response | null = null;
    const opened: OpenAI.Responses.Response[] = [];
    for await (const event of stream) {
      expect(event.sequence_number).toBe(types.length);
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.output_text.done') expect(event.text).toBe(text);
      if (event.type === 'response.created' || event.type === 'response.in_progress') opened.push(event.response);
      if (event.type === 'response.completed') completed = event.response;
    }
    // Every response object repeats the request's instructions and tools.
    expect(opened).toHaveLength(2);
    for (const response of [...opened, completed]) {
      expect(response?.instructions).toBe(turn().instructions);
      expect(response?.tools).toEqual(turn().tools);
    }
    expect(opened[0]).toMatchObject({ status: 'in_progress', completed_at: null, output: [], usage: null });
    expect(types.filter((t) => t === 'response.output_text.delta')).toHaveLength(197);
    expect(types).toHaveLength(205);
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(completed?.output).toEqual([
      expect.objectContaining({ type: 'message', content: [expect.objectContaining({ type: 'output_text', text })] }),
    ]);
    expect(completed?.usage).toMatchObject({ output_tokens: 197 });
    // The same events as named SSE events: one `data:` line each, after its `event:` line.
    const raw = await post(`http://127.0.0.1:${port}/v1/responses`, agentResponsesBody(true, true));
    expect(dataEvents(raw.text)).toHaveLength(205);
    expect(raw.text.startsWith('event: response.created\ndata: ')).toBe(true);
  });

  it('refuses a Responses body without input', async () => {
    const url = `http://127.0.0.1:${port}/v1/responses`;
    expect((await post(url, JSON.stringify({ model: 'm', input: [] }))).status).toBe(400);
    expect((await post(url, agentUpstreamBody(false))).status).toBe(400);
  });
});
