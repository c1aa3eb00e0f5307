/**
 * The fake Amazon Bedrock Converse wire (`/model/{modelId}/converse`, `/converse-stream` in AWS's
 * binary event-stream framing), deterministic from the request as the other chat wires are
 * (`chat-wires.ts`): the reply is `echo: <last user text>`, `result: <text>` after a tool
 * result; with tools (and a last user turn of text) the model calls the first tool (or the one
 * `toolChoice.tool` names) with `{"text": …}`.
 * - Auth: a Bedrock API key as `Authorization: Bearer …`, or AWS Signature V4 for {@link FAKE_AWS},
 *   service `bedrock`, which it verifies by signing the request again with `@smithy/signature-v4`
 *   (the signed headers, the path as sent, the body's SHA-256): a bad or missing signature is a
 *   403 as Bedrock's (`x-amzn-errortype`).
 * - Claude (a model id holding `anthropic.`) thinks when `additionalModelRequestFields.thinking`
 *   is enabled or adaptive: a `reasoningContent` block `thinking about: <last user text>` signed
 *   {@link BEDROCK_SIGNATURE} opens the answer.
 * - Usage: every word of the messages and the system is an input token; the system's words are
 *   cache reads when a `cachePoint` follows it; one output token per word.
 * It refuses (400 `ValidationException`) what Bedrock refuses: an unknown field, a blank text
 * block, turns that do not alternate from `user`, tool blocks without a `toolConfig`, thinking on a
 * model other than Claude, a budget under 1024 or not below `maxTokens`, and `temperature` with
 * thinking on.
 * @module
 */
import { createHash } from 'node:crypto';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { ChatWire } from './chat-wires';
import { pieces, turnFor, wordCount, words, type Turn } from './chat-wires';

/** The static credentials the fake accepts signatures of (and the region it signs for). */
export const FAKE_AWS = {
  accessKeyId: 'AKIAFAKEBEDROCK00001',
  secretAccessKey: 'fake-secret-access-key-for-tests-only',
  sessionToken: 'fake-session-token',
  region: 'us-east-1',
};

/** The signature the fake signs Claude's reasoning with. */
export const BEDROCK_SIGNATURE = 'sig_bedrock_1';
/** The id of the fake's tool calls. */
export const BEDROCK_TOOL_ID = 'tooluse_fake_1';

type Block = {
  text?: string;
  toolUse?: { toolUseId: string; name: string; input: unknown };
  toolResult?: { toolUseId: string; content?: Array<{ text?: string }>; status?: string };
  image?: unknown;
  document?: unknown;
  reasoningContent?: unknown;
  cachePoint?: unknown;
};
type Msg = { role?: string; content?: Block[] };

const TOP_LEVEL = new Set([
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'additionalModelRequestFields',
  'additionalModelResponseFieldPaths',
  'guardrailConfig',
  'promptVariables',
  'requestMetadata',
  'performanceConfig',
]);

/** Bedrock's error answer: the type in `x-amzn-errortype`, a `message` body. */
export function bedrockError(status: number, type: string, message: string) {
  return {
    status,
    headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
    body: { message },
  };
}

const invalid = (message: string) => ({ status: 400, body: { __type: 'ValidationException', message } });
const modelOf = (path: string | undefined) => decodeURIComponent(/\/model\/([^/]+)\//.exec(path ?? '')?.[1] ?? '');
const messagesOf = (body: Record<string, unknown>) => (body.messages as Msg[] | undefined) ?? [];
const isResultTurn = (m: Msg) => (m.content ?? []).some((b) => b.toolResult);
const textOf = (blocks: Block[] | undefined) => (blocks ?? []).map((b) => b.text ?? '').join('');

interface BedrockTurn extends Turn {
  thinking: string | null;
  cacheRead: number;
}

function thinkingOf(body: Record<string, unknown>): { type?: string; budget_tokens?: number } | undefined {
  return (body.additionalModelRequestFields as { thinking?: { type?: string; budget_tokens?: number } } | undefined)
    ?.thinking;
}

function bedrockTurn(body: Record<string, unknown>): BedrockTurn {
  const messages = messagesOf(body);
  const last = messages[messages.length - 1];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user' && !isResultTurn(m));
  const config = body.toolConfig as
    { tools?: Array<{ toolSpec: { name: string } }>; toolChoice?: { tool?: { name: string } } } | undefined;
  const toolName =
    config?.tools?.length && last && !isResultTurn(last)
      ? (config.toolChoice?.tool?.name ?? config.tools[0]!.toolSpec.name)
      : null;
  const results = last && isResultTurn(last) ? (last.content ?? []).filter((b) => b.toolResult) : [];
  const userText = lastUser ? textOf(lastUser.content) : null;
  const system = (body.system as Block[] | undefined) ?? [];
  const cacheRead = system.some((b) => b.cachePoint) ? wordCount(system) : 0;
  const maxTokens = (body.inferenceConfig as { maxTokens?: number } | undefined)?.maxTokens;
  const asked = {
    lastUser: userText,
    toolResult: results.length ? results.map((b) => textOf(b.toolResult!.content as Block[])).join(' ') : null,
    json: false,
  };
  const turn = turnFor(asked, toolName, maxTokens, wordCount(messages) + wordCount(system));
  const thinking = thinkingOf(body);
  const thinks = thinking?.type === 'enabled' || thinking?.type === 'adaptive';
  return { ...turn, thinking: thinks ? `thinking about: ${userText ?? ''}` : null, cacheRead };
}

function refusal(body: Record<string, unknown>, path?: string): { status: number; body: unknown } | null {
  const unknown = Object.keys(body).find((k) => !TOP_LEVEL.has(k));
  if (unknown) return invalid(`Malformed input request: extraneous key [${unknown}] is not permitted`);
  const messages = messagesOf(body);
  if (messages[0]?.role !== 'user') return invalid('A conversation must start with a user message.');
  for (const [i, m] of messages.entries()) {
    if (i > 0 && messages[i - 1]!.role === m.role)
      return invalid('A conversation must alternate between user and assistant roles.');
    for (const b of m.content ?? []) {
      if (b.text !== undefined && b.text.trim() === '')
        return invalid('The text field in the ContentBlock object is blank.');
      if ((b.toolUse || b.toolResult) && !body.toolConfig)
        return invalid('The toolConfig field must be defined when using toolUse and toolResult content blocks.');
    }
  }
  const thinking = thinkingOf(body);
  if (!thinking) return null;
  if (!modelOf(path).includes('anthropic.')) return invalid('The model does not support thinking.');
  const config = (body.inferenceConfig ?? {}) as { maxTokens?: number; temperature?: number };
  if (config.temperature !== undefined) return invalid('temperature may only be set to 1 when thinking is enabled.');
  const budget = thinking.budget_tokens;
  if (thinking.type === 'enabled' && (typeof budget !== 'number' || budget < 1024))
    return invalid('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
  if (thinking.type === 'enabled' && config.maxTokens !== undefined && budget! >= config.maxTokens)
    return invalid('`max_tokens` must be greater than `thinking.budget_tokens`.');
  return null;
}

const STOP = { stop: 'end_turn', length: 'max_tokens', tool: 'tool_use' } as const;

function usageOf(t: BedrockTurn) {
  const output = t.completionTokens + (t.thinking ? words(t.thinking).length : 0);
  return {
    inputTokens: t.promptTokens - t.cacheRead,
    outputTokens: output,
    totalTokens: t.promptTokens + output,
    ...(t.cacheRead ? { cacheReadInputTokens: t.cacheRead, cacheWriteInputTokens: 0 } : {}),
  };
}

function reasoningBlock(t: BedrockTurn): Block[] {
  return t.thinking
    ? [{ reasoningContent: { reasoningText: { text: t.thinking, signature: BEDROCK_SIGNATURE } } }]
    : [];
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One event-stream message: its `:message-type`, the header naming it, a JSON payload. */
function frame(kind: 'event' | 'exception', name: string, payload: unknown): Buffer {
  return Buffer.from(
    codec.encode({
      headers: {
        [kind === 'event' ? ':event-type' : ':exception-type']: { type: 'string', value: name },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: kind },
      },
      body: fromUtf8(JSON.stringify(payload)),
    }),
  );
}

/** One event of `type` (`messageStart`, `contentBlockDelta`, …) with a JSON payload. */
export const eventFrame = (type: string, payload: unknown) => frame('event', type, payload);

/** An in-stream exception of `type` (`throttlingException`, `modelStreamErrorException`, …). */
export const exceptionFrame = (type: string, message: string) => frame('exception', type, { message });

const header = (h: string | string[] | undefined) => (Array.isArray(h) ? h.join(',') : (h ?? ''));

/** Verify a SigV4 request against {@link FAKE_AWS}; null when it is good, else why not. */
async function signatureProblem(req: {
  url: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
}): Promise<string | null> {
  const auth = header(req.headers.authorization);
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]+)$/.exec(
      auth,
    );
  if (!m) return 'missing or malformed signature';
  const [, akid, , region, service, signedList, signature] = m;
  if (akid !== FAKE_AWS.accessKeyId || service !== 'bedrock' || region !== FAKE_AWS.region)
    return 'wrong credential scope';
  const sha = header(req.headers['x-amz-content-sha256']);
  if (sha && sha !== createHash('sha256').update(req.rawBody).digest('hex')) return 'body hash mismatch';
  const token = req.headers['x-amz-security-token'];
  if (token !== undefined && token !== FAKE_AWS.sessionToken) return 'wrong session token';
  const headers: Record<string, string> = {};
  for (const name of signedList!.split(';')) headers[name] = header(req.headers[name]);
  const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(headers['x-amz-date'] ?? '');
  if (!date) return 'missing x-amz-date';
  const [y = 0, mo = 1, d = 1, h = 0, mi = 0, s = 0] = date.slice(1).map(Number);
  const signer = new SignatureV4({
    service: 'bedrock',
    region: FAKE_AWS.region,
    credentials: { accessKeyId: FAKE_AWS.accessKeyId, secretAccessKey: FAKE_AWS.secretAccessKey },
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: false,
  });
  const [path = '/', query = ''] = req.url.split('?');
  const signed = await signer.sign(
    new HttpRequest({
      method: 'POST',
      hostname: headers.host ?? '',
      path,
      query: Object.fromEntries(new URLSearchParams(query)),
      headers,
      body: req.rawBody.toString('utf8'),
    }),
    { signingDate: new Date(Date.UTC(y, mo - 1, d, h, mi, s)) },
  );
  const expected = /Signature=([0-9a-f]+)/.exec(String(signed.headers.authorization))?.[1];
  return expected === signature ? null : 'signature mismatch';
}

/** The fake Bedrock Converse wire (see the module comment). */
export const bedrockChatWire: ChatWire = {
  path: '/converse',
  matches: (path) => /\/model\/[^/]+\/converse(-stream)?$/.test(path),
  streams: (path) => path.endsWith('/converse-stream'),
  streamContentType: 'application/vnd.amazon.eventstream',
  authenticate: async (req) => {
    if (/^Bearer \S+$/.test(header(req.headers.authorization))) return null;
    const problem = await signatureProblem(req);
    if (!problem) return null;
    const type =
      problem === 'missing or malformed signature' ? 'UnrecognizedClientException' : 'InvalidSignatureException';
    return bedrockError(
      403,
      type,
      `The request signature we calculated does not match the signature you provided (${problem}).`,
    );
  },
  refuse: (body, path) => refusal(body, path)?.body ?? null,
  answer(body) {
    const t = bedrockTurn(body);
    const reply: Block[] = t.tool
      ? [{ toolUse: { toolUseId: BEDROCK_TOOL_ID, name: t.tool.name, input: JSON.parse(t.tool.arguments) as unknown } }]
      : [{ text: t.text ?? '' }];
    return {
      output: { message: { role: 'assistant', content: [...reasoningBlock(t), ...reply] } },
      stopReason: STOP[t.finish],
      usage: usageOf(t),
      metrics: { latencyMs: 12 },
    };
  },
  events(body, opts) {
    const t = bedrockTurn(body);
    const out = [eventFrame('messageStart', { role: 'assistant' })];
    let index = 0;
    if (t.thinking) {
      for (const part of pieces(t.thinking))
        out.push(
          eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: part } } }),
        );
      out.push(
        eventFrame('contentBlockDelta', {
          contentBlockIndex: 0,
          delta: { reasoningContent: { signature: BEDROCK_SIGNATURE } },
        }),
      );
      out.push(eventFrame('contentBlockStop', { contentBlockIndex: 0 }));
      index = 1;
    }
    if (t.tool) {
      out.push(
        eventFrame('contentBlockStart', {
          contentBlockIndex: index,
          start: { toolUse: { toolUseId: BEDROCK_TOOL_ID, name: t.tool.name } },
        }),
      );
      const args = t.tool.arguments;
      const a = Math.ceil(args.length / 3);
      for (const piece of [args.slice(0, a), args.slice(a, 2 * a), args.slice(2 * a)].filter(Boolean))
        out.push(eventFrame('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: piece } } }));
    } else
      for (const part of pieces(t.text ?? ''))
        out.push(eventFrame('contentBlockDelta', { contentBlockIndex: index, delta: { text: part } }));
    out.push(eventFrame('contentBlockStop', { contentBlockIndex: index }));
    out.push(eventFrame('messageStop', { stopReason: STOP[t.finish] }));
    if (opts.reportUsage) out.push(eventFrame('metadata', { usage: usageOf(t), metrics: { latencyMs: 12 } }));
    return out;
  },
  errorEvent: exceptionFrame('modelStreamErrorException', 'The model stream broke off.'),
};
