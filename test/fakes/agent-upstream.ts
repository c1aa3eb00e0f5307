/**
 * A fake model for the real coding agents (test/agents): a real HTTP server on 127.0.0.1 speaking,
 * routed by path suffix, the OpenAI chat-completions wire (`/chat/completions`), the Anthropic
 * Messages wire (`/messages`) and the OpenAI Responses wire (`/responses`, which lets an agent be
 * pointed straight at the fake to check the harness), each whole and streamed as the official SDKs
 * parse them. It follows a tool plan instead of echoing:
 * - the last message is the user's and the request offers a tool of the plan: it calls the first
 *   such tool with the plan's input (Claude Code: `Read {file_path}`; Codex: `exec_command {cmd}`);
 * - the last message is a tool result: it answers `answer(<the result's text>)` (default
 *   `The tool returned: <text>`), so the agent's final output shows the result came back;
 * - anything else (an agent's background call, a request with no planned tool): the text `ok`.
 * Every request is recorded with the wire it came in on and what the fake did.
 * @module
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One tool the fake may call, and the input it calls it with. */
export interface ToolStep {
  tool: string;
  input: Record<string, unknown>;
}

export type AgentWire = 'chat' | 'messages' | 'responses';

/** What the fake did for a request. */
export type AgentAction = 'tool' | 'answer' | 'text';

export interface AgentCall {
  method: string;
  path: string;
  wire: AgentWire | null;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  stream: boolean;
  action: AgentAction | null;
  /** The tool called (`tool`) or the result answered (`answer`). */
  detail: string | null;
}

export interface AgentUpstream {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  calls: AgentCall[];
  reset(): void;
  close(): Promise<void>;
}

export interface AgentUpstreamOptions {
  plan: ToolStep[];
  answer?: (toolResult: string) => string;
  /** Edit a stream's events before they are written (to find what an agent's parser needs). */
  reshapeEvents?: (events: string[], wire: AgentWire, action: AgentAction) => string[];
}

/** What the model does: call a tool, or say a text. */
type Turn = { action: 'tool'; step: ToolStep } | { action: 'answer' | 'text'; text: string };

const CREATED = 1767225600;
const CALL_ID = 'call_agent_1';
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** The text of a content value: a string, or the `text` of its parts/blocks joined by newlines. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p: { text?: unknown; content?: unknown }) =>
      typeof p?.text === 'string' ? p.text : p?.content !== undefined ? textOf(p.content) : '',
    )
    .filter(Boolean)
    .join('\n');
}

/** What a request offers and ends with, whatever its wire. */
interface Asked {
  tools: Set<string>;
  /** The trailing tool results' text, or null when the last message is not a tool result. */
  toolResult: string | null;
  lastIsUser: boolean;
}

type Obj = Record<string, unknown>;
const asArray = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

function toolNames(tools: unknown): Set<string> {
  const names = new Set<string>();
  for (const t of asArray(tools)) {
    const fn = t.function as Obj | undefined;
    if (typeof fn?.name === 'string') names.add(fn.name);
    else if (typeof t.name === 'string') names.add(t.name);
    for (const inner of asArray(t.tools)) if (typeof inner.name === 'string') names.add(inner.name);
  }
  return names;
}

function askedChat(body: Obj): Asked {
  const messages = asArray(body.messages);
  const trailing: Obj[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) trailing.unshift(messages[i]!);
  return {
    tools: toolNames(body.tools),
    toolResult: trailing.length ? trailing.map((m) => textOf(m.content)).join('\n') : null,
    lastIsUser: messages[messages.length - 1]?.role === 'user',
  };
}

function askedMessages(body: Obj): Asked {
  const messages = asArray(body.messages);
  const last = messages[messages.length - 1];
  const results = last?.role === 'user' ? asArray(last.content).filter((b) => b.type === 'tool_result') : [];
  return {
    tools: toolNames(body.tools),
    toolResult: results.length ? results.map((b) => textOf(b.content)).join('\n') : null,
    lastIsUser: last?.role === 'user' && results.length === 0,
  };
}

function askedResponses(body: Obj): Asked {
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : asArray(body.input);
  const trailing: Obj[] = [];
  for (let i = input.length - 1; i >= 0 && String(input[i]!.type).endsWith('_call_output'); i--)
    trailing.unshift(input[i]!);
  const last = input[input.length - 1];
  return {
    tools: toolNames(body.tools),
    toolResult: trailing.length ? trailing.map((o) => textOf(o.output)).join('\n') : null,
    lastIsUser: last?.role === 'user',
  };
}

const ASKED: Record<AgentWire, (body: Obj) => Asked> = {
  chat: askedChat,
  messages: askedMessages,
  responses: askedResponses,
};

function turnFor(asked: Asked, opts: AgentUpstreamOptions): Turn {
  if (asked.toolResult !== null)
    return { action: 'answer', text: (opts.answer ?? ((r) => `The tool returned: ${r}`))(asked.toolResult) };
  const step = asked.lastIsUser ? opts.plan.find((s) => asked.tools.has(s.tool)) : undefined;
  return step ? { action: 'tool', step } : { action: 'text', text: 'ok' };
}

/** A string cut in three pieces (tool arguments arrive split across events). */
function thirds(text: string): string[] {
  const a = Math.ceil(text.length / 3);
  return [text.slice(0, a), text.slice(a, 2 * a), text.slice(2 * a)].filter(Boolean);
}
const pieces = (text: string) => text.split(/(?<= )/);
const sse = (type: string, data: Obj) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

// ---- OpenAI chat completions -----------------------------------------------------------------

function chatWhole(body: Obj, t: Turn, promptTokens: number): unknown {
  const args = t.action === 'tool' ? JSON.stringify(t.step.input) : '';
  const completion = t.action === 'tool' ? words(args) || 1 : words(t.text);
  return {
    id: 'chatcmpl-agent-1',
    object: 'chat.completion',
    created: CREATED,
    model: String(body.model),
    choices: [
      {
        index: 0,
        message:
          t.action === 'tool'
            ? {
                role: 'assistant',
                content: null,
                tool_calls: [{ id: CALL_ID, type: 'function', function: { name: t.step.tool, arguments: args } }],
              }
            : { role: 'assistant', content: t.text },
        logprobs: null,
        finish_reason: t.action === 'tool' ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion },
  };
}

function chatEvents(body: Obj, t: Turn, promptTokens: number): string[] {
  const withUsage = (body.stream_options as Obj | undefined)?.include_usage === true;
  const chunk = (delta: Obj, finish: string | null = null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-agent-1',
      object: 'chat.completion.chunk',
      created: CREATED,
      model: String(body.model),
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    })}\n\n`;
  const out = [chunk({ role: 'assistant', content: '' })];
  let completion: number;
  if (t.action === 'tool') {
    const args = JSON.stringify(t.step.input);
    completion = words(args) || 1;
    out.push(
      chunk({
        tool_calls: [{ index: 0, id: CALL_ID, type: 'function', function: { name: t.step.tool, arguments: '' } }],
      }),
    );
    for (const part of thirds(args)) out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] }));
    out.push(chunk({}, 'tool_calls'));
  } else {
    completion = words(t.text);
    for (const part of pieces(t.text)) out.push(chunk({ content: part }));
    out.push(chunk({}, 'stop'));
  }
  if (withUsage)
    out.push(
      `data: ${JSON.stringify({
        id: 'chatcmpl-agent-1',
        object: 'chat.completion.chunk',
        created: CREATED,
        model: String(body.model),
        choices: [],
        usage: { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion },
      })}\n\n`,
    );
  out.push('data: [DONE]\n\n');
  return out;
}

// ---- Anthropic Messages ----------------------------------------------------------------------

function messagesWhole(body: Obj, t: Turn, promptTokens: number): unknown {
  return {
    id: 'msg_agent_1',
    type: 'message',
    role: 'assistant',
    model: String(body.model),
    content:
      t.action === 'tool'
        ? [{ type: 'tool_use', id: 'toolu_agent_1', name: t.step.tool, input: t.step.input }]
        : [{ type: 'text', text: t.text }],
    stop_reason: t.action === 'tool' ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: promptTokens,
      output_tokens: t.action === 'tool' ? 1 : words(t.text),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

function messagesEvents(body: Obj, t: Turn, promptTokens: number): string[] {
  const out = [
    sse('message_start', {
      message: {
        id: 'msg_agent_1',
        type: 'message',
        role: 'assistant',
        model: String(body.model),
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: promptTokens,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
    }),
  ];
  if (t.action === 'tool') {
    out.push(
      sse('content_block_start', {
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_agent_1', name: t.step.tool, input: {} },
      }),
    );
    for (const part of thirds(JSON.stringify(t.step.input)))
      out.push(sse('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: part } }));
  } else {
    out.push(sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    for (const part of pieces(t.text))
      out.push(sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: part } }));
  }
  out.push(sse('content_block_stop', { index: 0 }));
  out.push(
    sse('message_delta', {
      delta: { stop_reason: t.action === 'tool' ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: t.action === 'tool' ? 1 : words(t.text) },
    }),
  );
  out.push(sse('message_stop', {}));
  return out;
}

// ---- OpenAI Responses (for pointing an agent straight at the fake) --------------------------

function responsesItem(t: Turn): Obj {
  return t.action === 'tool'
    ? {
        type: 'function_call',
        id: 'fc_agent_1',
        call_id: CALL_ID,
        name: t.step.tool,
        arguments: JSON.stringify(t.step.input),
        status: 'completed',
      }
    : {
        type: 'message',
        id: 'msg_agent_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: t.text, annotations: [] }],
      };
}

function responsesWhole(body: Obj, t: Turn, promptTokens: number): Obj {
  const output = t.action === 'tool' ? 1 : words(t.text);
  return {
    id: 'resp_agent_1',
    object: 'response',
    created_at: CREATED,
    model: String(body.model),
    status: 'completed',
    output: [responsesItem(t)],
    usage: {
      input_tokens: promptTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: promptTokens + output,
    },
  };
}

function responsesEvents(body: Obj, t: Turn, promptTokens: number): string[] {
  const done = responsesWhole(body, t, promptTokens);
  const item = responsesItem(t);
  const started = { ...done, status: 'in_progress', output: [], usage: null };
  const out = [sse('response.created', { response: started }), sse('response.in_progress', { response: started })];
  if (t.action === 'tool') {
    out.push(sse('response.output_item.added', { output_index: 0, item: { ...item, arguments: '' } }));
    for (const part of thirds(String(item.arguments)))
      out.push(sse('response.function_call_arguments.delta', { output_index: 0, item_id: item.id, delta: part }));
    out.push(
      sse('response.function_call_arguments.done', { output_index: 0, item_id: item.id, arguments: item.arguments }),
    );
  } else {
    out.push(sse('response.output_item.added', { output_index: 0, item: { ...item, content: [] } }));
    for (const part of pieces(t.text))
      out.push(sse('response.output_text.delta', { output_index: 0, content_index: 0, item_id: item.id, delta: part }));
  }
  out.push(sse('response.output_item.done', { output_index: 0, item }));
  out.push(sse('response.completed', { response: done }));
  return out;
}

const WIRES: Record<AgentWire, { whole: typeof chatWhole; events: typeof chatEvents }> = {
  chat: { whole: chatWhole, events: chatEvents },
  messages: { whole: messagesWhole, events: messagesEvents },
  responses: { whole: responsesWhole, events: responsesEvents },
};

function wireOf(path: string): AgentWire | null {
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/messages')) return 'messages';
  if (path.endsWith('/responses')) return 'responses';
  return null;
}

/** Start the agent fake on an ephemeral loopback port. */
export async function startAgentUpstream(opts: AgentUpstreamOptions): Promise<AgentUpstream> {
  const calls: AgentCall[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      let body: Obj = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj;
      } catch {
        /* recorded as {} */
      }
      const wire = req.method === 'POST' ? wireOf(path) : null;
      const call: AgentCall = {
        method: req.method ?? '',
        path: req.url ?? '',
        wire,
        headers: req.headers,
        body,
        stream: body.stream === true,
        action: null,
        detail: null,
      };
      calls.push(call);
      if (!wire)
        return void res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"message":"no such route"}}');
      const turn = turnFor(ASKED[wire](body), opts);
      call.action = turn.action;
      call.detail = turn.action === 'tool' ? turn.step.tool : turn.text;
      const promptTokens = Math.max(1, Math.round(Buffer.concat(chunks).length / 4));
      if (!call.stream)
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(WIRES[wire].whole(body, turn, promptTokens)));
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const events = WIRES[wire].events(body, turn, promptTokens);
      for (const event of opts.reshapeEvents?.(events, wire, turn.action) ?? events) res.write(event);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    reset: () => void (calls.length = 0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
