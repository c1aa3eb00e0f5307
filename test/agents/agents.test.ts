/**
 * End to end with the real coding agents: Claude Code (`claude -p`, over the gateway's Anthropic
 * Messages door, `POST /api/v1/messages`) and Codex (`codex exec`, over its Responses door,
 * `POST /api/v1/responses`), installed at pinned versions by ./install.ts. Each is asked to read a
 * file holding a unique marker; the agent fake (test/fakes/agent-upstream.ts) has the model call
 * the agent's own file tool (Claude Code's `Read`, Codex's `exec_command` with `cat`) and, given
 * the tool's result, answer with it. A run passes when the agent's final output holds the marker
 * and the fake saw exactly the tool call and the answer after it. Through the gateway, each agent
 * runs three times: its model served by an Anthropic-format upstream, by an OpenAI-chat-format
 * one, and by one that serves OpenAI's `/responses` too, to which Codex's turns pass through (a
 * test catalog whose only provider for the model is the fake of that format).
 *
 * First, each agent is pointed straight at the fake (which speaks Messages and Responses too):
 * that checks the harness itself (install, spawn, config files, the fake's wires as the agents
 * parse them) apart from the gateway.
 *
 * Skipped only with SWITCHYARD_SKIP_AGENTS=1 (the first install downloads ~800 MB into a cache
 * outside the clone, see ./install.ts).
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import path from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { startAgentUpstream, type AgentUpstream } from '../fakes/agent-upstream';
import { startGatewayHarness, type GatewayHarness } from '../fakes/gateway-harness';
import { listenApp } from '../helpers/listening';
import { tempDir } from '../helpers/temp-dir';
import { fromRoot } from '../../src/paths';
import { installAgents, type InstalledAgents } from './install';
import { killAgents, runClaude, runCodex, type AgentRun } from './run-agent';

const SKIP = process.env.SWITCHYARD_SKIP_AGENTS === '1';
if (SKIP)
  console.warn(
    'test/agents/agents.test.ts: SKIPPED because SWITCHYARD_SKIP_AGENTS=1 (the real Claude Code and Codex).',
  );
const describeAgents = SKIP ? describe.skip : describe;

/** Models by the names the agents send (the catalog resolves them through aliases and upstream names). */
const CLAUDE_MODEL = 'claude-sonnet-4-5';
const CLAUDE_SMALL_MODEL = 'claude-haiku-4-5';
const CODEX_MODEL = 'gpt-4.1';
/** One agent run's bound; the test's own is a little longer so the run's output is reported. */
const RUN_MS = 150_000;
const TEST_MS = RUN_MS + 30_000;

/** The upstream formats a model is served over through the gateway: provider slug → adapter. */
const FORMATS = [
  { name: 'an Anthropic Messages upstream', slug: 'agent-anthropic', adapter: 'anthropic', basePath: '/anthropic/v1' },
  { name: 'an OpenAI chat-completions upstream', slug: 'agent-openai', adapter: 'openai', basePath: '/openai/v1' },
  {
    name: "OpenAI's Responses API (Codex's turns passed through)",
    slug: 'agent-openai-responses',
    adapter: 'openai',
    basePath: '/responses/v1',
    responses: true,
  },
] as const;

let agents: InstalledAgents;
let fake: AgentUpstream;
let work: string;
let project: string;
let file: string;
const marker = `switchyard-marker-${randomUUID()}`;
/** What the gateway answered the agent in the current test (an error's body kept in part). */
const gatewaySaw: string[] = [];

/** The gateway's app, recording each request's status (and the start of an error's body) in `gatewaySaw`. */
function recording(app: http.RequestListener): http.RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (res.statusCode >= 400 && (typeof chunk === 'string' || Buffer.isBuffer(chunk)))
        chunks.push(Buffer.from(chunk));
      return write(chunk, ...rest);
    }) as typeof res.write;
    const end = res.end.bind(res) as (...args: unknown[]) => http.ServerResponse;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (res.statusCode >= 400 && (typeof chunk === 'string' || Buffer.isBuffer(chunk)))
        chunks.push(Buffer.from(chunk));
      return end(chunk, ...rest);
    }) as typeof res.end;
    res.on('finish', () => {
      const body = Buffer.concat(chunks).toString('utf8').slice(0, 500);
      gatewaySaw.push(`${req.method} ${req.url} → ${res.statusCode}${body ? ` ${body}` : ''}`);
    });
    app(req, res);
  };
}

/** What a failed run tells: the agent's output and what the fake saw. */
function report(run: AgentRun): string {
  const calls = fake.calls.map((c) => `${c.method} ${c.path} [${c.wire}] stream=${c.stream} → ${c.action} ${c.detail}`);
  const tail = (s: string) => (s.length > 4000 ? `…${s.slice(-4000)}` : s);
  return [
    `exit ${run.code} signal ${run.signal}${run.timedOut ? ' (timed out)' : ''}`,
    `stdout:\n${tail(run.stdout)}`,
    `stderr:\n${tail(run.stderr)}`,
    `the gateway answered ${gatewaySaw.length} request(s):\n${gatewaySaw.join('\n')}`,
    `the fake upstream saw ${calls.length} request(s):\n${calls.join('\n')}`,
  ].join('\n');
}

/** The run printed the marker (the tool's result came back) and the fake saw the tool call, then the answer. */
function expectRoundTrip(run: AgentRun, tool: string): void {
  if (!run.stdout.includes(marker)) throw new Error(`the agent's output lacks the marker ${marker}\n${report(run)}`);
  expect(fake.calls.map((c) => [c.action, c.action === 'tool' ? c.detail : null])).toEqual([
    ['tool', tool],
    ['answer', null],
  ]);
  expect(fake.calls[1]!.detail).toContain(marker);
}

const claude = (baseUrl: string, token: string, model: string, smallModel: string, auth?: 'x-api-key') =>
  runClaude({
    bin: agents.claude,
    baseUrl,
    token,
    auth,
    model,
    smallModel,
    prompt: `Read the file ${file} and tell me its contents`,
    cwd: project,
    home: path.join(work, `claude-${randomUUID()}`),
    maxTurns: 3,
    timeoutMs: RUN_MS,
  });

const codex = (baseUrl: string, token: string, model: string) =>
  runCodex({
    bin: agents.codex,
    baseUrl,
    token,
    model,
    prompt: `Read the file ${file} and tell me its contents`,
    cwd: project,
    home: path.join(work, `codex-${randomUUID()}`),
    timeoutMs: RUN_MS,
  });

/**
 * The default catalog with two more providers (the agent fake, one per wire format), where every
 * anthropic/* and openai/* chat model is served by `slug` only. Returns the catalog config.
 */
function catalogServedBy(slug: string, dir: string) {
  const providers = parseYaml(readFileSync(fromRoot('config', 'providers.yaml'), 'utf8')) as {
    providers: Array<Record<string, unknown>>;
  };
  for (const f of FORMATS)
    providers.providers.push({
      slug: f.slug,
      name: `Agent fake (${f.adapter})`,
      adapter: f.adapter,
      base_url: `${fake.origin}${f.basePath}`,
      api_key: `test-key-${f.slug}`,
      ...('responses' in f ? { responses: true } : {}),
    });
  const chat = parseYaml(readFileSync(fromRoot('config', 'chat-models.yaml'), 'utf8')) as {
    models: Array<{ id: string; endpoints: Array<Record<string, unknown>> }>;
  };
  for (const m of chat.models)
    if (m.id.startsWith('anthropic/') || m.id.startsWith('openai/'))
      m.endpoints = [{ ...m.endpoints[0], provider: slug }];
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'providers.yaml'), toYaml(providers));
  writeFileSync(path.join(dir, 'chat-models.yaml'), toYaml(chat));
  return {
    providersFile: path.join(dir, 'providers.yaml'),
    chatModelsFile: path.join(dir, 'chat-models.yaml'),
    modelsFile: fromRoot('config', 'models.yaml'),
  };
}

describeAgents('the real coding agents', () => {
  beforeAll(async () => {
    // The first install downloads the agents (a few hundred MB each); later runs reuse the cache.
    agents = await installAgents((line) => console.log(line));
    work = tempDir('sy-agents-');
    project = path.join(work, 'project');
    mkdirSync(project, { recursive: true });
    file = path.join(project, 'notes.txt');
    writeFileSync(file, `${marker}\n`);
    fake = await startAgentUpstream({
      plan: [
        { tool: 'Read', input: { file_path: file } },
        { tool: 'exec_command', input: { cmd: `cat ${file}` } },
      ],
    });
  }, 15 * 60_000);
  afterAll(async () => {
    killAgents();
    await fake?.close();
  });
  beforeEach(() => {
    fake.reset();
    gatewaySaw.length = 0;
  });
  afterEach(() => killAgents());

  describe('harness check: each agent straight at the agent fake', () => {
    test(
      `claude-code ${'-p'} reads the file over the fake's Messages wire`,
      async () => {
        const run = await claude(`${fake.origin}/direct`, 'direct-token', 'claude-sonnet-4', 'claude-3-5-haiku');
        expectRoundTrip(run, 'Read');
        expect(fake.calls[0]).toMatchObject({ path: '/direct/v1/messages?beta=true', wire: 'messages', stream: true });
      },
      TEST_MS,
    );

    test(
      "codex exec reads the file over the fake's Responses wire",
      async () => {
        const run = await codex(`${fake.origin}/direct/v1`, 'direct-token', 'gpt-4.1');
        expectRoundTrip(run, 'exec_command');
        expect(fake.calls[0]).toMatchObject({ path: '/direct/v1/responses', wire: 'responses', stream: true });
      },
      TEST_MS,
    );
  });

  describe.each(FORMATS)('through the gateway, the model served by $name', (format) => {
    let h: GatewayHarness;
    /** The gateway's base URL (…/api/v1), served through `recording`. */
    let baseUrl: string;
    let closeListener: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      h = await startGatewayHarness({
        overrides: {
          catalog: catalogServedBy(format.slug, path.join(work, `catalog-${format.slug}`)),
          // Agents send large prompts (Claude Code's first request is ~90 KB) and wait on tools.
          upstream: { attemptTimeoutMs: 60_000, deadlineMs: 120_000 },
        },
      });
      const listening = await listenApp(recording(h.gw.app));
      baseUrl = listening.baseUrl;
      closeListener = () => listening.close();
    }, 60_000);
    afterAll(async () => {
      await closeListener?.();
      await h?.close();
    });

    const upstreamPath = `${format.basePath}${format.adapter === 'anthropic' ? '/messages' : '/chat/completions'}`;
    /** Where Codex's turns go: OpenAI's own `/responses` where the provider serves it, else translated. */
    const codexPath = 'responses' in format ? `${format.basePath}/responses` : upstreamPath;

    // Harness check: over the chat completions the branch already serves, the test catalog sends the
    // models to the fake of this format, and the fake's tool plan round-trips, whole and streamed.
    test.each([false, true])(
      'harness check: POST /api/v1/chat/completions (stream %s) reaches the fake and the tool round trip works',
      async (stream) => {
        const client = new OpenAI({ apiKey: h.key, baseURL: baseUrl, maxRetries: 0 });
        const ask = async (params: ChatCompletionCreateParamsNonStreaming): Promise<ChatCompletion> =>
          stream
            ? client.chat.completions.stream({ ...params, stream: true }).finalChatCompletion()
            : client.chat.completions.create(params);
        const tools = [
          {
            type: 'function' as const,
            function: {
              name: 'Read',
              parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
            },
          },
        ];
        for (const model of [CLAUDE_MODEL, CODEX_MODEL]) {
          fake.reset();
          const user = { role: 'user' as const, content: `Read ${file}` };
          const first = await ask({ model, tools, messages: [user] });
          const call = first.choices[0]!.message.tool_calls?.[0];
          if (call?.type !== 'function') throw new Error(`expected a tool call, got ${JSON.stringify(first)}`);
          expect(call.function.name).toBe('Read');
          expect(JSON.parse(call.function.arguments)).toEqual({ file_path: file });
          const second = await ask({
            model,
            tools,
            messages: [user, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: marker }],
          });
          expect(second.choices[0]!.message.content).toContain(marker);
          expect(fake.calls.map((c) => [c.path.split('?')[0], c.stream, c.action])).toEqual([
            [upstreamPath, stream, 'tool'],
            [upstreamPath, stream, 'answer'],
          ]);
        }
      },
      30_000,
    );

    test(
      `claude-code -p reads the file over POST /api/v1/messages (${CLAUDE_MODEL})`,
      async () => {
        const run = await claude(baseUrl.replace(/\/v1$/, ''), h.key, CLAUDE_MODEL, CLAUDE_SMALL_MODEL);
        expectRoundTrip(run, 'Read');
        expect(fake.calls.map((c) => c.path.split('?')[0])).toEqual([upstreamPath, upstreamPath]);
      },
      TEST_MS,
    );

    test(
      'claude-code -p with ANTHROPIC_API_KEY (its key as x-api-key) reads the file too',
      async () => {
        const run = await claude(baseUrl.replace(/\/v1$/, ''), h.key, CLAUDE_MODEL, CLAUDE_SMALL_MODEL, 'x-api-key');
        expectRoundTrip(run, 'Read');
      },
      TEST_MS,
    );

    test(
      `codex exec reads the file over POST /api/v1/responses (${CODEX_MODEL})`,
      async () => {
        const run = await codex(baseUrl, h.key, CODEX_MODEL);
        expectRoundTrip(run, 'exec_command');
        expect(fake.calls.map((c) => c.path.split('?')[0])).toEqual([codexPath, codexPath]);
      },
      TEST_MS,
    );
  });
});
