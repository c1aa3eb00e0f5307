/**
 * A capture server: a real HTTP server on 127.0.0.1 that records every request (method, path,
 * query, headers, JSON body) and answers the least each agent accepts: an Anthropic Messages
 * answer (streamed or whole) on `…/messages`, `{input_tokens}` on `…/count_tokens`, a Responses
 * stream on `…/responses`, an empty list on `…/models`, else a 404.
 *
 * As a script (`node -r ./test/helpers/ts-loader.js test/agents/capture.ts`) it installs the agents,
 * runs each once against the server and writes their first turn to test/fixtures/agents/, then
 * once against the agent fake (test/fakes/agent-upstream.ts, which calls the agent's file tool) and
 * writes the request that carries the tool's result (secret headers replaced in both).
 * @module
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AGENT_VERSIONS, installAgents } from './install';
import { runClaude, runCodex } from './run-agent';
import { startAgentUpstream, type AgentCall } from '../fakes/agent-upstream';

/** A request the capture server received. */
export interface CapturedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface CaptureServer {
  origin: string;
  requests: CapturedRequest[];
  close(): Promise<void>;
}

const sse = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** The smallest Anthropic stream the SDK accepts: one text block. */
export function anthropicTextEvents(model: string, text: string): string[] {
  return [
    sse('message_start', {
      message: {
        id: 'msg_capture_1',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    }),
    sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
    sse('content_block_stop', { index: 0 }),
    sse('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } }),
    sse('message_stop', {}),
  ];
}

/** The smallest Responses stream Codex accepts: created, one message item, completed (with usage). */
export function responsesTextEvents(model: string, text: string): string[] {
  const response = { id: 'resp_capture_1', object: 'response', created_at: 1767225600, model, status: 'in_progress' };
  const item = {
    type: 'message',
    id: 'msg_capture_1',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
  return [
    sse('response.created', { response }),
    sse('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }),
    sse('response.output_text.delta', { output_index: 0, content_index: 0, item_id: item.id, delta: text }),
    sse('response.output_item.done', { output_index: 0, item }),
    sse('response.completed', {
      response: {
        ...response,
        status: 'completed',
        output: [item],
        usage: {
          input_tokens: 1,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 1,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 2,
        },
      },
    }),
  ];
}

/** Start the capture server on an ephemeral loopback port. */
export async function startCaptureServer(): Promise<CaptureServer> {
  const requests: CapturedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://capture');
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw ? (JSON.parse(raw) as unknown) : null;
      } catch {
        /* kept as text */
      }
      requests.push({
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: { ...req.headers },
        body,
      });
      const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
      const model = typeof b.model === 'string' ? b.model : 'unknown';
      const stream = (events: string[]) => {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const e of events) res.write(e);
        res.end();
      };
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (url.pathname.endsWith('/count_tokens')) return json(200, { input_tokens: 1 });
      if (url.pathname.endsWith('/messages')) {
        if (b.stream === true) return stream(anthropicTextEvents(model, 'captured'));
        return json(200, {
          id: 'msg_capture_1',
          type: 'message',
          role: 'assistant',
          model,
          content: [{ type: 'text', text: 'captured' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        });
      }
      if (url.pathname.endsWith('/responses')) return stream(responsesTextEvents(model, 'captured'));
      if (url.pathname.endsWith('/models')) return json(200, { object: 'list', data: [] });
      json(404, { error: { message: 'not captured here' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Headers that carry a secret, replaced in a fixture. */
const SECRET_HEADERS = ['authorization', 'x-api-key', 'cookie'];

/** A captured request as a fixture: secrets replaced by `<redacted>`, the capture port by `<port>`. */
export function toFixture(r: CapturedRequest, origin: string, note: Record<string, unknown>): unknown {
  const port = new URL(origin).port;
  const headers = Object.fromEntries(
    Object.entries(r.headers).map(([k, v]) => [k, SECRET_HEADERS.includes(k) ? '<redacted>' : v]),
  );
  if (typeof headers.host === 'string') headers.host = headers.host.replace(port, '<port>');
  return { ...note, method: r.method, path: r.path, query: r.query, headers, body: r.body };
}

/** A request the agent fake recorded, as the capture server records them. */
function fromAgentCall(c: AgentCall): CapturedRequest {
  const url = new URL(c.path, 'http://capture');
  return {
    method: c.method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { ...c.headers },
    body: c.body,
  };
}

function writeFixture(file: string, r: CapturedRequest, origin: string, agent: string, version: string, how: string) {
  const out = path.join(__dirname, '..', 'fixtures', 'agents');
  mkdirSync(out, { recursive: true });
  const fixture = toFixture(r, origin, { agent, version, captured: `test/agents/capture.ts: ${how}` });
  writeFileSync(path.join(out, file), JSON.stringify(fixture, null, 2) + '\n');
}

async function main(): Promise<void> {
  const agents = await installAgents((line) => console.log(line));
  const work = mkdtempSync(path.join(os.tmpdir(), 'sy-capture-'));
  const secret = 'sk-capture-secret';
  try {
    const cwd = path.join(work, 'project');
    mkdirSync(cwd, { recursive: true });
    const file = path.join(cwd, 'notes.txt');
    writeFileSync(file, 'capture marker\n');
    const prompt = `Read the file ${file} and tell me its contents`;
    const claude = (origin: string, home: string) =>
      runClaude({
        bin: agents.claude,
        baseUrl: `${origin}/api`,
        token: secret,
        model: 'claude-sonnet-4',
        smallModel: 'claude-3-5-haiku',
        prompt,
        cwd,
        home: path.join(work, home),
      });
    const codex = (origin: string, home: string) =>
      runCodex({
        bin: agents.codex,
        baseUrl: `${origin}/api/v1`,
        token: secret,
        model: 'gpt-4.1',
        prompt,
        cwd,
        home: path.join(work, home),
      });
    const claudeBase = 'ANTHROPIC_BASE_URL=http://127.0.0.1:<port>/api';
    const codexBase = 'base_url = "http://127.0.0.1:<port>/api/v1"';

    // The first turn: against the capture server, which answers a plain text.
    for (const [name, run, suffix, version, base] of [
      ['claude-code', claude, '/messages', AGENT_VERSIONS.claudeCode, claudeBase],
      ['codex', codex, '/responses', AGENT_VERSIONS.codex, codexBase],
    ] as const) {
      const capture = await startCaptureServer();
      const result = await run(capture.origin, `${name}-home`);
      await capture.close();
      console.log(`${name}:`, JSON.stringify({ ...result, requests: capture.requests }, null, 2));
      const first = capture.requests.find((r) => r.method === 'POST' && r.path.endsWith(suffix));
      if (!first) throw new Error(`${name}: no POST …${suffix} captured`);
      writeFixture(`${name}-first-turn.json`, first, capture.origin, name, version, `a capture server; ${base}`);
    }

    // The turn after the tool: against the agent fake, which calls the agent's file tool first.
    const fake = await startAgentUpstream({
      plan: [
        { tool: 'Read', input: { file_path: file } },
        { tool: 'exec_command', input: { cmd: `cat ${file}` } },
      ],
    });
    try {
      for (const [name, run, tool, version, base] of [
        ['claude-code', claude, 'Read', AGENT_VERSIONS.claudeCode, claudeBase],
        ['codex', codex, 'exec_command', AGENT_VERSIONS.codex, codexBase],
      ] as const) {
        fake.reset();
        const result = await run(fake.origin, `${name}-tool-home`);
        console.log(`${name} (tool):`, JSON.stringify({ ...result, calls: fake.calls.map((c) => c.path) }, null, 2));
        const [call, answer] = fake.calls;
        if (call?.action !== 'tool' || answer?.action !== 'answer')
          throw new Error(`${name}: expected the tool call and the answer after it, saw ${fake.calls.length} calls`);
        writeFixture(
          `${name}-tool-result-turn.json`,
          fromAgentCall(answer),
          fake.origin,
          name,
          version,
          `test/fakes/agent-upstream.ts, whose first answer called ${tool}; ${base}`,
        );
      }
    } finally {
      await fake.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
