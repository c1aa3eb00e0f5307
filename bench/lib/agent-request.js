/**
 * The agent benchmarks' request (BENCH_CASE=agent, agent-stream): a synthetic turn of a coding
 * agent, as such agents send `POST /chat/completions` on every step of a task. Built here, from a
 * fixed seed, so every run and every target sends the same bytes; no prompt is copied from a real
 * agent. A turn carries:
 * - 12 tools with long JSON-Schema parameters and descriptions (about 32 KB of `tools` in all);
 * - a system prompt of about 12 KB (guidelines in sections, the environment, a git status);
 * - the conversation so far: the user's first message (project instructions and the task), then
 *   steps of an assistant message with `tool_calls` and the `tool` results, which hold
 *   source-file-like text (files read with line numbers, search hits, test and shell output,
 *   edits), until the body has the size asked.
 * BENCH_AGENT_KB sizes the client's body (KB of 1,024 bytes, UTF-8): 50 by default (a first turn),
 * 150 for a later turn, 1024 for a 1 MB turn; at least 48, since the tools and the system prompt
 * alone are about 44 KB. The model is `openai/gpt-4.1-mini` from the shipped chat catalog (an
 * OpenAI-format provider, a context of about a million tokens, so a 1 MB turn fits), with
 * `max_tokens: 32000` as an agent sets it.
 */
'use strict';
const { Buffer } = require('node:buffer');

/** The catalog's model, and the name the gateway sends upstream for it. */
const AGENT_MODEL = 'openai/gpt-4.1-mini';
const AGENT_UPSTREAM_MODEL = 'gpt-4.1-mini';
/** The completion bound an agent sends on every turn (the model's endpoint allows 32,768). */
const AGENT_MAX_TOKENS = 32000;
const DEFAULT_KB = 50;
/** The smallest turn: the tools, the system prompt and the first user message. */
const MIN_KB = 48;
/** BENCH_AGENT_KB, the size of the turn the agent cases send. */
const AGENT_KB = Number(process.env.BENCH_AGENT_KB || DEFAULT_KB);
const SEED = 60;
const TOOLS_BYTES = 32 * 1024;
const SYSTEM_BYTES = 12 * 1024;
const ROOT = '/home/dev/projects/atlas';

const bytes = (value) => Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));

/** A seeded generator (mulberry32) and the choices the builder makes with it. */
function generator(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (list) => list[Math.floor(next() * list.length)];
  return { next, int, pick };
}

const PROSE = (
  'the a an and or of to in on for with when before after every each only never always if unless then so ' +
  'request answer file change test tool command user task project code module function type repository branch commit ' +
  'diff patch error warning output input path directory workspace context budget limit token model provider route ' +
  'stream event handler server client config setting schema field value default reason step plan result summary ' +
  'read write edit search run check verify explain prefer avoid keep ask confirm report describe update remove add ' +
  'follow reuse mention quote list show open close start stop wait retry fail pass build lint format deploy ' +
  'existing current relevant small short clear exact safe careful concise complete minimal local remote new old ' +
  'first last next same other whole'
).split(' ');
const NOUNS = [
  'request',
  'route',
  'budget',
  'ledger',
  'token',
  'cache',
  'stream',
  'provider',
  'endpoint',
  'usage',
  'key',
  'workspace',
  'record',
  'event',
  'answer',
  'plan',
  'limit',
  'lease',
  'metric',
  'catalog',
  'model',
  'prompt',
  'reader',
  'writer',
  'queue',
  'batch',
];
const VERBS = [
  'read',
  'parse',
  'build',
  'settle',
  'reserve',
  'release',
  'format',
  'check',
  'resolve',
  'count',
  'record',
  'flush',
  'load',
  'select',
  'merge',
];
const TYPES = [
  'string',
  'number',
  'boolean',
  'Buffer',
  'Date',
  'unknown',
  'string[]',
  'Map<string, number>',
  'Promise<void>',
  'Record<string, string>',
];
const DIRS = [
  'http',
  'chat',
  'budgets',
  'usage',
  'routing',
  'catalog',
  'providers/openai',
  'inference',
  'keys',
  'workspaces',
];
const FILLER = ['Note:', 'Important:', 'Remember that', 'In general,', 'For example,', 'Where possible,'];
const UNICODE = ['—', '→', '≤', 'é', '✓', '…'];

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const camel = (...words) => words[0] + words.slice(1).map(cap).join('');

/** Prose, code and tool output from one generator. */
function writers(g) {
  const sentence = (lo = 8, hi = 20) => `${cap(Array.from({ length: g.int(lo, hi) }, () => g.pick(PROSE)).join(' '))}.`;
  const paragraph = (n = g.int(2, 5)) => Array.from({ length: n }, () => sentence()).join(' ');
  const noun = () => g.pick(NOUNS);
  const type = () => cap(noun());
  const file = () => `src/${g.pick(DIRS)}/${noun()}-${g.pick(VERBS)}.ts`;
  const id = (prefix, n) => `${prefix}${Array.from({ length: n }, () => g.int(0, 35).toString(36)).join('')}`;
  /** One line of TypeScript-like source, indented by `depth`. */
  const codeLine = (depth) => {
    const pad = '  '.repeat(depth);
    const n = noun();
    switch (g.int(0, 9)) {
      case 0:
        return `${pad}// ${sentence(5, 14)}${g.next() < 0.1 ? ` ${g.pick(UNICODE)} ${g.pick(PROSE)}` : ''}`;
      case 1:
        return `${pad}const ${camel(n, noun())} = ${camel(g.pick(VERBS), type())}(${n}, { ${noun()}: ${g.int(1, 5000)} });`;
      case 2:
        return `${pad}if (${n}.${noun()} === undefined) return null;`;
      case 3:
        return `${pad}for (const ${n} of ${camel(noun(), 's')}) total += ${n}.${camel(noun(), 'Count')};`;
      case 4:
        return `${pad}throw new GatewayError(${g.pick([400, 402, 404, 413, 429, 502])}, \`the ${n} ${g.pick(PROSE)} \${${n}.id}\`);`;
      case 5:
        return `${pad}await this.${camel(g.pick(VERBS), type())}(${n}, ${camel(noun(), 'Options')});`;
      case 6:
        return `${pad}${camel(n, 'Count')} += Math.max(0, ${camel(noun(), 'Tokens')} - ${g.int(1, 64)});`;
      case 7:
        return `${pad}logger.debug('${sentence(3, 8).toLowerCase()}', { ${n}, ${noun()}Ms: Date.now() - started });`;
      case 8:
        return `${pad}const ${n}: ${g.pick(TYPES)} = "${g.pick(PROSE)}-${g.int(0, 99)}";`;
      default:
        return `${pad}return { ...${n}, ${noun()}: ${camel(g.pick(VERBS), type())}(${n}.${noun()}) };`;
    }
  };
  /** A block: a function, a class method group or an interface, as a list of lines. */
  const block = () => {
    const kind = g.int(0, 3);
    if (kind === 0) {
      const name = `${type()}${cap(noun())}`;
      const fields = Array.from({ length: g.int(3, 8) }, () => [
        `  /** ${sentence(4, 12)} */`,
        `  ${noun()}${g.next() < 0.3 ? '?' : ''}: ${g.pick(TYPES)};`,
      ]).flat();
      return [`export interface ${name} {`, ...fields, '}', ''];
    }
    const body = Array.from({ length: g.int(4, 16) }, () => codeLine(g.next() < 0.2 ? 2 : 1));
    const head = `export ${kind === 1 ? 'async ' : ''}function ${camel(g.pick(VERBS), type())}(${noun()}: ${type()}, options: ${type()}Options = {}): ${kind === 1 ? 'Promise<' : ''}${type()}${kind === 1 ? '>' : ''} {`;
    return ['/**', ` * ${sentence()}`, ` * ${sentence()}`, ' */', head, ...body, '}', ''];
  };
  /** About `size` bytes of a source file, as lines. */
  const sourceLines = (size) => {
    const lines = [
      '/**',
      ` * ${paragraph(2)}`,
      ' * @module',
      ' */',
      ...Array.from({ length: g.int(2, 6) }, () => `import { ${type()} } from '../${g.pick(DIRS)}/${noun()}';`),
      '',
    ];
    let n = lines.reduce((s, l) => s + l.length + 1, 0);
    while (n < size) {
      for (const l of block()) {
        lines.push(l);
        n += Buffer.byteLength(l) + 1;
      }
    }
    return lines;
  };
  /** Lines numbered as a file-reading tool shows them (`cat -n`). */
  const numbered = (lines, from = 1) => lines.map((l, i) => `${String(from + i).padStart(6)}\t${l}`).join('\n');
  return { sentence, paragraph, noun, type, file, id, codeLine, sourceLines, numbered };
}

/** A property of a tool's parameters: its JSON Schema with a long description. */
function property(w, g, type, extra = {}) {
  return {
    type,
    description:
      `${w.sentence()} ${w.sentence()} ${g.next() < 0.5 ? `${g.pick(FILLER)} ${w.sentence().toLowerCase()}` : ''}`.trim(),
    ...extra,
  };
}

/** The 12 tools; each tool's description grows until the tools come to about TOOLS_BYTES. */
function buildTools(w, g) {
  const s = (extra) => property(w, g, 'string', extra);
  const i = (extra) => property(w, g, 'integer', extra);
  const b = () => property(w, g, 'boolean');
  const strings = () => property(w, g, 'array', { items: { type: 'string' } });
  const specs = [
    [
      'read_file',
      { file_path: s(), offset: i({ minimum: 1 }), limit: i({ minimum: 1, maximum: 2000 }) },
      ['file_path'],
    ],
    ['write_file', { file_path: s(), content: s() }, ['file_path', 'content']],
    [
      'edit_file',
      { file_path: s(), old_string: s(), new_string: s(), replace_all: b() },
      ['file_path', 'old_string', 'new_string'],
    ],
    [
      'multi_edit',
      {
        file_path: s(),
        edits: property(w, g, 'array', {
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['old_string', 'new_string'],
            properties: { old_string: s(), new_string: s(), replace_all: b() },
          },
        }),
      },
      ['file_path', 'edits'],
    ],
    ['list_directory', { path: s(), ignore: strings() }, ['path']],
    ['glob', { pattern: s(), path: s() }, ['pattern']],
    [
      'grep',
      {
        pattern: s(),
        path: s(),
        glob: s(),
        type: s(),
        output_mode: s({ enum: ['content', 'files_with_matches', 'count'] }),
        context_lines: i({ minimum: 0 }),
        case_insensitive: b(),
        multiline: b(),
        head_limit: i({ minimum: 1 }),
      },
      ['pattern'],
    ],
    [
      'run_shell',
      { command: s(), timeout_ms: i({ minimum: 1000, maximum: 600000 }), description: s(), run_in_background: b() },
      ['command'],
    ],
    ['web_fetch', { url: s({ format: 'uri' }), prompt: s() }, ['url', 'prompt']],
    ['web_search', { query: s({ minLength: 2 }), allowed_domains: strings(), blocked_domains: strings() }, ['query']],
    [
      'todo_write',
      {
        todos: property(w, g, 'array', {
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'content', 'status'],
            properties: {
              id: s(),
              content: s({ minLength: 1 }),
              status: s({ enum: ['pending', 'in_progress', 'completed'] }),
              priority: s({ enum: ['high', 'medium', 'low'] }),
            },
          },
        }),
      },
      ['todos'],
    ],
    [
      'spawn_task',
      { description: s(), prompt: s(), agent_type: s({ enum: ['general', 'explore', 'review'] }) },
      ['description', 'prompt'],
    ],
  ];
  const tools = specs.map(([name, properties, required]) => ({
    type: 'function',
    function: {
      name,
      description: w.paragraph(3),
      parameters: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        additionalProperties: false,
        required,
        properties,
      },
    },
  }));
  // The shortest tool's description grows by a paragraph until the tools come to TOOLS_BYTES.
  const sizes = tools.map((t) => bytes(t));
  for (let total = bytes(tools); total < TOOLS_BYTES;) {
    const k = sizes.indexOf(Math.min(...sizes));
    const tool = tools[k];
    tool.function.description += `\n\n${g.next() < 0.3 ? '- ' : ''}${w.paragraph()}`;
    const size = bytes(tool);
    total += size - sizes[k];
    sizes[k] = size;
  }
  return tools;
}

/** The system prompt: sections of guidelines until about SYSTEM_BYTES, then the environment. */
function buildSystem(w, g) {
  const env = [
    '# Environment',
    `Working directory: ${ROOT}`,
    'Is the directory a git repository: yes',
    'Platform: linux',
    "Today's date: 2026-01-15",
    '',
    'gitStatus: This is the git status at the start of the conversation.',
    'Current branch: feature/agent-turns',
    'Status:',
    ...Array.from({ length: 6 }, () => `${g.pick([' M', '??', ' D', 'A '])} ${w.file()}`),
  ].join('\n');
  const head =
    'You are Forge, an interactive command-line agent that helps users with software engineering tasks. Use the instructions below and the tools available to you to assist the user.\n\n';
  const titles = [
    'Tone and style',
    'Doing tasks',
    'Tool usage policy',
    'Following conventions',
    'Code style',
    'Version control',
    'Testing',
    'Safety',
  ];
  let text = head;
  for (let section = 0; bytes(text) + bytes(env) < SYSTEM_BYTES; section++) {
    text += `# ${titles[section % titles.length]}\n${w.paragraph()}\n`;
    for (let n = g.int(3, 7); n > 0 && bytes(text) + bytes(env) < SYSTEM_BYTES; n--) text += `- ${w.sentence()}\n`;
    text += '\n';
  }
  return text + env;
}

/**
 * One step of the agent's loop: an assistant message with a tool call and its result, the result
 * at most `room` bytes (about `room`; whatever the kind of step needs at the least).
 */
function buildStep(w, g, room) {
  const callId = w.id('call_', 24);
  const kind = g.pick(['read', 'read', 'read', 'grep', 'shell', 'edit']);
  const path = `${ROOT}/${w.file()}`;
  let name;
  let args;
  let result;
  if (kind === 'read') {
    name = 'read_file';
    args = { file_path: path };
    const lines = w.sourceLines(Math.min(room, g.int(3000, 14000)));
    result = w.numbered(lines);
  } else if (kind === 'grep') {
    name = 'grep';
    args = { pattern: `${w.noun()}(Count|Tokens)`, path: `${ROOT}/src`, output_mode: 'content', context_lines: 0 };
    const want = Math.min(room, g.int(1000, 4000));
    const hits = [];
    for (let n = 0; n < want;) {
      const hit = `${w.file()}:${g.int(1, 400)}:${w.codeLine(1)}`;
      hits.push(hit);
      n += Buffer.byteLength(hit) + 1;
    }
    result = hits.join('\n');
  } else if (kind === 'shell') {
    name = 'run_shell';
    args = { command: 'npm test -- test/unit --silent', description: w.sentence(4, 8) };
    const want = Math.min(room, g.int(1000, 5000));
    const out = [];
    for (let n = 0; n < want;) {
      const line =
        g.next() < 0.2
          ? ` PASS  test/unit/${w.noun()}-${w.noun()}.test.ts (${g.int(1, 9)}.${g.int(100, 999)} s)`
          : `    ✓ ${w.sentence(4, 10).toLowerCase()} (${g.int(1, 300)} ms)`;
      out.push(line);
      n += Buffer.byteLength(line) + 1;
    }
    result = `${out.join('\n')}\n\nTest Suites: ${g.int(10, 40)} passed\nTests:       ${g.int(100, 900)} passed\nTime:        ${g.int(5, 60)}.${g.int(100, 999)} s`;
  } else {
    name = 'edit_file';
    const lines = w.sourceLines(Math.min(room / 2, g.int(400, 1500)));
    args = {
      file_path: path,
      old_string: lines.slice(0, 12).join('\n'),
      new_string: lines
        .slice(0, 12)
        .map((l) => l.replace(/\bnull\b/, 'undefined'))
        .join('\n'),
    };
    result = `The file ${path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${w.numbered(lines, g.int(10, 300))}`;
  }
  const say = w.sentence(6, 16).replace(/\.$/, ':');
  return [
    {
      role: 'assistant',
      content: say,
      tool_calls: [{ id: callId, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    },
    { role: 'tool', tool_call_id: callId, content: result },
  ];
}

/** `text` cut to at most `n` UTF-8 bytes, at a character boundary. */
function cutTo(text, n) {
  if (Buffer.byteLength(text) <= n) return text;
  let out = Buffer.from(text).subarray(0, Math.max(0, n)).toString('utf8');
  if (out.endsWith('\uFFFD')) out = out.slice(0, -1);
  return out;
}

const built = new Map();

/**
 * The agent turn of about `kb` KB (1,024 bytes) as the client's body (without `stream`):
 * `{ system, tools, messages }` and the fixed fields. Deterministic for a given `kb` and `seed`.
 * @param {number} [kb]
 * @param {number} [seed]
 */
function agentTurn(kb = AGENT_KB, seed = SEED) {
  if (!Number.isFinite(kb) || kb < MIN_KB)
    throw new Error(
      `BENCH_AGENT_KB must be a number of KB, at least ${MIN_KB} (the tools and the system prompt alone are about 44 KB), not ${kb}`,
    );
  const key = `${kb}/${seed}`;
  if (built.has(key)) return built.get(key);
  const g = generator(seed);
  const w = writers(g);
  const tools = buildTools(w, g);
  const system = buildSystem(w, g);
  const instructions = `<project-instructions path="${ROOT}/AGENTS.md">\n# Atlas\n${w.paragraph(4)}\n\n## Commands\n- \`npm test\`: ${w.sentence()}\n- \`npm run lint\`: ${w.sentence()}\n\n## Conventions\n${Array.from({ length: 6 }, () => `- ${w.sentence()}`).join('\n')}\n</project-instructions>`;
  const task = `${instructions}\n\n${w.paragraph(3)} Start with ${w.file()} and make the tests pass.`;
  const messages = [
    { role: 'system', content: system },
    { role: 'user', content: task },
  ];
  const fields = {
    model: AGENT_MODEL,
    messages,
    tools,
    tool_choice: 'auto',
    parallel_tool_calls: true,
    temperature: 0,
    max_tokens: AGENT_MAX_TOKENS,
  };
  // Room for the stream fields, so the streamed body is within the size asked too.
  const target = kb * 1024 - 64;
  // The body grows by each message's JSON and a comma; steps are added while there is room for one.
  let size = bytes(fields);
  const STEP_MIN = 600;
  while (target - size > STEP_MIN) {
    const step = buildStep(w, g, target - size - 400);
    const stepBytes = step.reduce((n, m) => n + bytes(m) + 1, 0);
    const tool = step[1];
    if (size + stepBytes > target) {
      // The last step's result is cut so that the body lands on the size asked.
      const over = size + stepBytes - target;
      const keep = Buffer.byteLength(tool.content) - over - 64;
      if (keep < 200) break;
      tool.content = cutTo(tool.content, keep);
    }
    messages.push(...step);
    size += step.reduce((n, m) => n + bytes(m) + 1, 0);
  }
  const turn = { fields, system, tools, messages };
  built.set(key, turn);
  return turn;
}

/** The client's body to the gateway and the chat floor. */
const agentGatewayBody = (stream, kb = AGENT_KB, seed = SEED) =>
  JSON.stringify({
    ...agentTurn(kb, seed).fields,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });

/**
 * The same request as the gateway sends it upstream (for the direct and proxy targets): the
 * provider's model name, the OpenAI members as the client sent them, and a stream that asks for usage.
 */
function agentUpstreamBody(stream, kb = AGENT_KB, seed = SEED) {
  const { model: _model, ...rest } = agentTurn(kb, seed).fields;
  return JSON.stringify({
    model: AGENT_UPSTREAM_MODEL,
    ...rest,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}

/** The Messages door's model (Anthropic's format upstream, as Claude Code sends a turn) and its upstream name. */
const AGENT_MESSAGES_MODEL = 'anthropic/claude-sonnet-4.5';
const AGENT_MESSAGES_UPSTREAM_MODEL = 'claude-sonnet-4-5-20250929';

/** A tool call id in Anthropic's form (`toolu_…`). */
const toolUseId = (id) => `toolu_${id.slice('call_'.length)}`;

/**
 * The same turn in Anthropic's Messages shape, as Claude Code sends one: the system prompt as a
 * text block, the tools with `input_schema`, each assistant step's text and `tool_use` block, and
 * each result as a user turn's `tool_result` block (without `model` and `stream`).
 * @param {number} [kb]
 * @param {number} [seed]
 */
function agentMessagesFields(kb = AGENT_KB, seed = SEED) {
  const { fields, system, tools, messages } = agentTurn(kb, seed);
  const turns = [];
  for (const m of messages) {
    if (m.role === 'user') turns.push({ role: 'user', content: [{ type: 'text', text: m.content }] });
    else if (m.role === 'assistant')
      turns.push({
        role: 'assistant',
        content: [
          { type: 'text', text: m.content },
          ...m.tool_calls.map((c) => ({
            type: 'tool_use',
            id: toolUseId(c.id),
            name: c.function.name,
            input: JSON.parse(c.function.arguments),
          })),
        ],
      });
    else if (m.role === 'tool')
      turns.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: toolUseId(m.tool_call_id), content: m.content }],
      });
  }
  return {
    max_tokens: fields.max_tokens,
    system: [{ type: 'text', text: system }],
    tools: tools.map((t) => ({
      name: t.function.name,
      description: t.function.description,
      input_schema: t.function.parameters,
    })),
    tool_choice: { type: 'auto' },
    temperature: fields.temperature,
    messages: turns,
  };
}

/** A door's body of `fields` for `model`, streamed or not. */
const bodyOf = (model, fields, stream) => JSON.stringify({ model, ...fields, ...(stream ? { stream: true } : {}) });

/** The Messages turn as the client's body to the gateway and the floor, or (`upstream`) as the gateway sends it on. */
const agentMessagesBody = (stream, upstream, kb = AGENT_KB, seed = SEED) =>
  bodyOf(upstream ? AGENT_MESSAGES_UPSTREAM_MODEL : AGENT_MESSAGES_MODEL, agentMessagesFields(kb, seed), stream);

/** A message item of the Responses input: the user's text as `input_text`, the assistant's as `output_text`. */
const messageItem = (role, text) => ({
  type: 'message',
  role,
  content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
});

/** The Responses input items of one chat message of the turn (the system prompt goes in `instructions`). */
function responsesItems(m) {
  if (m.role === 'user') return [messageItem('user', m.content)];
  if (m.role === 'assistant')
    return [
      messageItem('assistant', m.content),
      ...m.tool_calls.map((c) => ({
        type: 'function_call',
        call_id: c.id,
        name: c.function.name,
        arguments: c.function.arguments,
      })),
    ];
  if (m.role === 'tool') return [{ type: 'function_call_output', call_id: m.tool_call_id, output: m.content }];
  return [];
}

/**
 * The same turn in the Responses shape, as Codex sends one: the system prompt as `instructions`,
 * the conversation as input items (messages, each tool call a `function_call` item and its result
 * a `function_call_output` item naming the same `call_id`), the tools as Responses function tools,
 * and `store: false`, since an agent sends the whole conversation every turn (without `model` and
 * `stream`). The members come in the order the floor forwards them.
 * @param {number} [kb]
 * @param {number} [seed]
 */
function agentResponsesFields(kb = AGENT_KB, seed = SEED) {
  const { fields, system, tools, messages } = agentTurn(kb, seed);
  return {
    instructions: system,
    input: messages.flatMap(responsesItems),
    tools: tools.map((t) => ({
      type: 'function',
      name: t.function.name,
      description: t.function.description,
      parameters: t.function.parameters,
      strict: false,
    })),
    tool_choice: fields.tool_choice,
    parallel_tool_calls: fields.parallel_tool_calls,
    temperature: fields.temperature,
    max_output_tokens: fields.max_tokens,
    store: false,
  };
}

/**
 * The Responses turn as the client's body to the gateway and the floor, or (`upstream`) as the
 * floor sends it on to `/v1/responses`, with the provider's model name (the gateway's door sends
 * chat completions upstream instead).
 */
const agentResponsesBody = (stream, upstream, kb = AGENT_KB, seed = SEED) =>
  bodyOf(upstream ? AGENT_UPSTREAM_MODEL : AGENT_MODEL, agentResponsesFields(kb, seed), stream);

module.exports = {
  AGENT_DEFAULT_KB: DEFAULT_KB,
  AGENT_MESSAGES_MODEL,
  AGENT_MESSAGES_UPSTREAM_MODEL,
  agentMessagesBody,
  agentMessagesFields,
  agentResponsesBody,
  agentResponsesFields,
  AGENT_KB,
  AGENT_MAX_TOKENS,
  AGENT_MODEL,
  AGENT_UPSTREAM_MODEL,
  MIN_KB,
  agentTurn,
  agentGatewayBody,
  agentUpstreamBody,
};
