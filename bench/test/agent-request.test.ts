/**
 * The agent cases' request (bench/lib/agent-request.js) and their entries in the cases table
 * (bench/lib/cases.js): a turn lands on the size asked, is the same in every process, is a chat
 * request the gateway accepts (its wire schema, and its prompt within the model's context), and
 * BENCH_CASE=agent / agent-stream resolve to it; the same turn in the Responses shape (Codex's),
 * which the gateway's Responses door accepts and reads as the same conversation.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { readPrompt } from '../../src/chat/prompt';
import type { ChatBody } from '../../src/chat/types';
import { readBody } from '../../src/responses/plan';
import type { ResponsesBody } from '../../src/responses/types';
import { createAjv, toIssues } from '../../src/validation/ajv';
import { definitionSchemas, requestSchemas } from '../../src/wire';
import {
  AGENT_MAX_TOKENS,
  AGENT_MODEL,
  AGENT_UPSTREAM_MODEL,
  MIN_KB,
  agentGatewayBody,
  agentMessagesBody,
  agentResponsesBody,
  agentResponsesFields,
  agentTurn,
  agentUpstreamBody,
  type AgentResponsesItem,
} from '../lib/agent-request';
import { benchCase, caseLabel, configFor } from '../lib/cases';

const KB = 1024;
const SIZES = [50, 150, 1024];
const bytes = (s: string): number => Buffer.byteLength(s);

/** The gateway's validator of bodies of schema `id`, as its request validation compiles it. */
function validator(id: 'chat.create.body' | 'responses.create.body'): ValidateFunction {
  const ajv = createAjv(false);
  for (const s of [...definitionSchemas, ...requestSchemas]) ajv.addSchema(s);
  return ajv.getSchema(id) as ValidateFunction;
}

/** Throws the validator's issues, so a refused body says why. */
function expectValid(validate: ValidateFunction, body: unknown): void {
  if (!validate(body))
    throw new Error(
      toIssues('body', validate.errors)
        .map((i) => `${i.path} ${i.message}`)
        .join('\n'),
    );
}

describe('agent turn', () => {
  it.each(SIZES)('a turn of %i KB lands within 10 %% of it, whole and streamed', (kb) => {
    for (const body of [agentGatewayBody(false, kb), agentGatewayBody(true, kb), agentUpstreamBody(true, kb)]) {
      expect(bytes(body)).toBeGreaterThanOrEqual(0.9 * kb * KB);
      expect(bytes(body)).toBeLessThanOrEqual(1.1 * kb * KB);
    }
  });

  it('has 12 tools of about 32 KB, a system prompt of about 12 KB, and a history of tool calls and their results', () => {
    const turn = agentTurn(150);
    expect(turn.tools).toHaveLength(12);
    expect(bytes(JSON.stringify(turn.tools)) / KB).toBeGreaterThan(32 * 0.9);
    expect(bytes(JSON.stringify(turn.tools)) / KB).toBeLessThan(32 * 1.1);
    expect(bytes(turn.system) / KB).toBeGreaterThan(12 * 0.9);
    expect(bytes(turn.system) / KB).toBeLessThan(12 * 1.1);
    expect(turn.messages[0]).toEqual({ role: 'system', content: turn.system });
    expect(turn.messages[1]?.role).toBe('user');
    // Every tool result answers the assistant's call just before it.
    const rest = turn.messages.slice(2);
    expect(rest.length).toBeGreaterThan(10);
    for (let i = 0; i < rest.length; i += 2) {
      const [call, result] = [rest[i], rest[i + 1]];
      expect(call?.role).toBe('assistant');
      expect(result?.role).toBe('tool');
      expect(result?.tool_call_id).toBe(call?.tool_calls?.[0]?.id);
      expect(() => JSON.parse(call?.tool_calls?.[0]?.function.arguments ?? '')).not.toThrow();
    }
    expect(turn.fields.max_tokens).toBe(AGENT_MAX_TOKENS);
  });

  it('is the same bytes in another process', () => {
    const hash = (s: string): string => createHash('sha256').update(s).digest('hex');
    const script = `const a = require(${JSON.stringify(path.join(__dirname, '..', 'lib', 'agent-request.js'))});
      const h = (s) => require('node:crypto').createHash('sha256').update(s).digest('hex');
      process.stdout.write([h(a.agentGatewayBody(false, 150)), h(a.agentGatewayBody(true, 50))].join(' '));`;
    const other = execFileSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      env: { ...process.env, BENCH_AGENT_KB: '' },
    });
    expect(other).toBe([hash(agentGatewayBody(false, 150)), hash(agentGatewayBody(true, 50))].join(' '));
    expect(agentGatewayBody(false, 50, 7)).not.toBe(agentGatewayBody(false, 50));
  });

  it('refuses a size below the tools and the system prompt', () => {
    expect(() => agentTurn(MIN_KB - 1)).toThrow(/BENCH_AGENT_KB/);
    expect(() => agentTurn(Number('x'))).toThrow(/BENCH_AGENT_KB/);
  });

  it.each(SIZES)(
    "a turn of %i KB is a chat request the gateway accepts, its prompt within the model's context",
    (kb) => {
      const validate = validator('chat.create.body');
      for (const stream of [false, true]) expectValid(validate, JSON.parse(agentGatewayBody(stream, kb)) as ChatBody);
      const catalog = parseYaml(
        readFileSync(path.join(__dirname, '..', '..', 'config', 'chat-models.yaml'), 'utf8'),
      ) as {
        models: Array<{
          id: string;
          context_length: number;
          endpoints: Array<{
            provider: string;
            upstream_model: string;
            max_completion_tokens?: number;
            supported_parameters?: string[];
          }>;
        }>;
      };
      const model = catalog.models.find((m) => m.id === AGENT_MODEL);
      const endpoint = model?.endpoints.find((e) => e.provider === 'openai');
      expect(endpoint?.upstream_model).toBe(AGENT_UPSTREAM_MODEL);
      expect(endpoint?.max_completion_tokens).toBeGreaterThanOrEqual(AGENT_MAX_TOKENS);
      expect(endpoint?.supported_parameters).toEqual(
        expect.arrayContaining(['tools', 'tool_choice', 'parallel_tool_calls', 'temperature', 'max_tokens']),
      );
      const prompt = readPrompt(JSON.parse(agentGatewayBody(false, kb)) as ChatBody);
      expect(prompt.tokens).toBeLessThan(model?.context_length ?? 0);
    },
  );

  it("goes upstream as the gateway sends it: the provider's model name and a stream that asks for usage", () => {
    const client = JSON.parse(agentGatewayBody(true)) as Record<string, unknown>;
    const upstream = JSON.parse(agentUpstreamBody(true)) as Record<string, unknown>;
    expect(upstream).toEqual({
      ...client,
      model: AGENT_UPSTREAM_MODEL,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(JSON.parse(agentUpstreamBody(false))).not.toHaveProperty('stream');
  });
});

describe('agent turn, Responses shape', () => {
  it.each(SIZES)('a turn of %i KB lands within 1 %% of it, whole, streamed and as the floor sends it on', (kb) => {
    for (const body of [
      agentResponsesBody(false, false, kb),
      agentResponsesBody(true, false, kb),
      agentResponsesBody(true, true, kb),
    ]) {
      expect(bytes(body)).toBeGreaterThanOrEqual(0.99 * kb * KB);
      expect(bytes(body)).toBeLessThanOrEqual(1.01 * kb * KB);
    }
  });

  it('is the chat turn as Codex sends it: instructions, input items, the tools as Responses function tools', () => {
    const turn = agentTurn(150);
    const fields = agentResponsesFields(150);
    expect(fields).toMatchObject({
      instructions: turn.system,
      tool_choice: 'auto',
      parallel_tool_calls: true,
      temperature: turn.fields.temperature,
      max_output_tokens: AGENT_MAX_TOKENS,
      store: false,
    });
    expect(fields.tools).toEqual(turn.tools.map((t) => ({ type: 'function', ...t.function, strict: false })));
    expect(fields.input[0]).toEqual({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: turn.messages[1]?.content }],
    });
    // Each step: the assistant's text, its function_call, and the function_call_output naming the same call_id.
    const steps = fields.input.slice(1);
    expect(steps).toHaveLength(((turn.messages.length - 2) / 2) * 3);
    const ids = new Set<string>();
    for (let i = 0; i < steps.length; i += 3) {
      const [say, call, output] = steps.slice(i, i + 3) as [AgentResponsesItem, AgentResponsesItem, AgentResponsesItem];
      expect(say).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text' }] });
      if (call.type !== 'function_call' || output.type !== 'function_call_output') throw new Error(`step ${i / 3}`);
      expect(output.call_id).toBe(call.call_id);
      expect(ids.has(call.call_id)).toBe(false);
      ids.add(call.call_id);
      expect(() => JSON.parse(call.arguments)).not.toThrow();
    }
  });

  it('is the same bytes in another process', () => {
    const hash = (s: string): string => createHash('sha256').update(s).digest('hex');
    const script = `const a = require(${JSON.stringify(path.join(__dirname, '..', 'lib', 'agent-request.js'))});
      const h = (s) => require('node:crypto').createHash('sha256').update(s).digest('hex');
      process.stdout.write([h(a.agentResponsesBody(false, false, 150)), h(a.agentResponsesBody(true, true, 50))].join(' '));`;
    const other = execFileSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      env: { ...process.env, BENCH_AGENT_KB: '' },
    });
    expect(other).toBe(
      [hash(agentResponsesBody(false, false, 150)), hash(agentResponsesBody(true, true, 50))].join(' '),
    );
    expect(agentResponsesBody(false, false, 50, 7)).not.toBe(agentResponsesBody(false, false, 50));
  });

  it.each(SIZES)(
    "a turn of %i KB is a Responses request the gateway's door accepts and reads as the chat turn's conversation",
    (kb) => {
      const validate = validator('responses.create.body');
      for (const stream of [false, true]) {
        const body = JSON.parse(agentResponsesBody(stream, false, kb)) as ResponsesBody;
        expectValid(validate, body);
        const { exchange, tools } = readBody(body);
        expect(tools.leftOut).toEqual([]);
        expect(exchange.tools).toHaveLength(12);
        // The system prompt, the user's message, and each step's assistant turn (its text and call) and tool result.
        expect(exchange.messages.map((m) => m.role)).toEqual(agentTurn(kb).messages.map((m) => m.role));
      }
    },
  );

  it("goes upstream as the floor sends it: the provider's model name, the client's members", () => {
    const client = JSON.parse(agentResponsesBody(true, false)) as Record<string, unknown>;
    expect(client.model).toBe(AGENT_MODEL);
    expect(JSON.parse(agentResponsesBody(true, true))).toEqual({ ...client, model: AGENT_UPSTREAM_MODEL });
    expect(JSON.parse(agentResponsesBody(false, true))).not.toHaveProperty('stream');
  });
});

describe('agent cases', () => {
  it.each([
    ['agent', false],
    ['agent-stream', true],
  ] as const)('BENCH_CASE=%s is the agent turn on the chat route', (name, stream) => {
    const c = benchCase(name);
    expect(c).toMatchObject({
      name,
      stream,
      upstream: 'chat-upstream.js',
      floor: 'chat-floor.js',
      route: '/chat/completions',
      kb: 50,
    });
    expect(c.body).toBe(agentGatewayBody(stream, 50));
    expect(c.upstreamBody).toBe(agentUpstreamBody(stream, 50));
    expect(caseLabel(c)).toBe(name);
    expect(caseLabel({ ...c, kb: 1024 })).toBe(`${name}-1024kb`);
  });

  it.each([
    ['agent-messages', false, 'messages', agentMessagesBody],
    ['agent-messages-stream', true, 'messages', agentMessagesBody],
    ['agent-responses', false, 'responses', agentResponsesBody],
    ['agent-responses-stream', true, 'responses', agentResponsesBody],
  ] as const)('BENCH_CASE=%s is the agent turn through its door', (name, stream, format, bodyOf) => {
    const c = benchCase(name);
    expect(c).toMatchObject({
      name,
      stream,
      format,
      upstream: 'chat-upstream.js',
      floor: 'chat-floor.js',
      route: `/${format}`,
      upstreamPath: `/v1/${format}`,
      kb: 50,
    });
    expect(c.body).toBe(bodyOf(stream, false, 50));
    expect(c.upstreamBody).toBe(bodyOf(stream, true, 50));
  });

  it("raises the bench gateway's body limit only for a body the shipped limit refuses", () => {
    expect(benchCase('agent').config).toEqual({});
    expect(configFor(agentGatewayBody(true, 1024))).toEqual({});
    expect(configFor('x'.repeat(2 * 1024 * KB))).toEqual({ server: { bodyLimitBytes: 4 * 1024 * KB } });
  });

  it('is refused where a script does not run it', () => {
    expect(() => benchCase('agent', ['embeddings', 'chat'])).toThrow(/BENCH_CASE must be embeddings, chat, not agent/);
  });
});
