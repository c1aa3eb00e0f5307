/**
 * The Messages door's way in for an upstream of another format: a validated Messages body in
 * canonical form. Thinking blocks become reasoning parts (format `anthropic-claude-v1`, signature
 * kept), `tool_use` / `tool_result` blocks tool calls and results (a user turn's results become a
 * tool message), images and `cache_control` carry over. What has no canonical form (documents,
 * server tools, unknown blocks) is named by {@link unmappable}; the plan refuses it for such an
 * upstream rather than drop it silently. Structured outputs (`output_config.format`) become the
 * canonical response format; the other Anthropic-only fields (`thinking`, the rest of
 * `output_config`, `context_management`, `container`, `mcp_servers`, `service_tier` …) are dropped.
 * @module
 */
import type {
  Exchange,
  Message,
  Part,
  ReasoningEffort,
  ReasoningRequest,
  Tool,
  ToolChoice,
} from '../inference/exchange';
import { blocksOf } from './prompt';
import type { Block, MessagesBody, MessagesTurn } from './types';

type Raw = Record<string, unknown>;

/** A cache marker of the canonical shape (`ephemeral` is the only type Anthropic defines). */
function cacheOf(b: Raw): { type: 'ephemeral'; ttl?: string } | undefined {
  const c = b.cache_control as { type?: string; ttl?: string } | undefined;
  if (c?.type !== 'ephemeral') return undefined;
  return c.ttl !== undefined ? { type: 'ephemeral', ttl: c.ttl } : { type: 'ephemeral' };
}

/** One block as a canonical part; null when it has none (see {@link unmappable}). */
function partOf(block: Block): Part | null {
  const b = block as Raw;
  switch (b.type) {
    case 'text': {
      const cacheControl = cacheOf(b);
      return cacheControl
        ? { type: 'text', text: String(b.text), cacheControl }
        : { type: 'text', text: String(b.text) };
    }
    case 'image': {
      const s = b.source as Raw;
      if (s.type === 'base64' && typeof s.data === 'string')
        return {
          type: 'image',
          source: { kind: 'base64', mediaType: typeof s.media_type === 'string' ? s.media_type : '', data: s.data },
        };
      if (s.type === 'url' && typeof s.url === 'string') return { type: 'image', source: { kind: 'url', url: s.url } };
      return null;
    }
    case 'tool_use':
      return { type: 'tool_call', id: String(b.id), name: String(b.name), arguments: JSON.stringify(b.input ?? {}) };
    case 'tool_result': {
      const content =
        typeof b.content === 'string' || b.content === undefined
          ? String(b.content ?? '')
          : (b.content as Block[]).map(partOf).filter((p): p is Part => p !== null);
      return b.is_error === true
        ? { type: 'tool_result', callId: String(b.tool_use_id), content, isError: true }
        : { type: 'tool_result', callId: String(b.tool_use_id), content };
    }
    case 'thinking':
      return typeof b.signature === 'string'
        ? { type: 'reasoning', format: 'anthropic-claude-v1', text: String(b.thinking), signature: b.signature }
        : { type: 'reasoning', format: 'anthropic-claude-v1', text: String(b.thinking) };
    case 'redacted_thinking':
      return { type: 'reasoning', format: 'anthropic-claude-v1', encrypted: String(b.data) };
    default:
      return null;
  }
}

/** Where a block's kind has no canonical form: `messages.2.content.0 (document)`, for the 400. */
export function unmappable(body: MessagesBody): string[] {
  const found: string[] = [];
  body.messages.forEach((turn, i) =>
    blocksOf(turn.content).forEach((block, j) => {
      const inner = block.type === 'tool_result' && Array.isArray(block.content) ? block.content : [];
      if (partOf(block) === null || inner.some((b) => partOf(b as Block) === null))
        found.push(`messages.${i}.content.${j} (${block.type})`);
    }),
  );
  (body.tools ?? []).forEach((tool, i) => {
    if (!('input_schema' in tool)) found.push(`tools.${i} (${String(tool.type)})`);
  });
  return found;
}

/** One turn as canonical messages: a user turn's tool results go first, as one tool message. */
function messagesOf(turn: MessagesTurn): Message[] {
  const parts = blocksOf(turn.content)
    .map(partOf)
    .filter((p): p is Part => p !== null);
  if (turn.role === 'assistant') return [{ role: 'assistant', parts }];
  const results = parts.filter((p) => p.type === 'tool_result');
  const rest = parts.filter((p) => p.type !== 'tool_result');
  const out: Message[] = results.map((p) => ({ role: 'tool', parts: [p] }));
  if (rest.length > 0 || results.length === 0) out.push({ role: 'user', parts: rest });
  return out;
}

function toolChoiceOf(choice: NonNullable<MessagesBody['tool_choice']>): ToolChoice {
  if (choice.type === 'tool' && choice.name !== undefined) return { name: choice.name };
  return choice.type === 'any' ? 'required' : choice.type === 'none' ? 'none' : 'auto';
}

/**
 * Anthropic's structured outputs (`output_config.format`, earlier the beta's `output_format`):
 * `{type: "json_schema", schema}` as the canonical response format, so that another format's
 * upstream is held to the same schema rather than losing it.
 */
function structuredOutput(body: MessagesBody): Exchange['responseFormat'] {
  const fields = body as Record<string, unknown>;
  const config = fields.output_config as { format?: unknown } | undefined;
  const format = (config?.format ?? fields.output_format) as { type?: unknown; schema?: unknown } | undefined;
  if (format?.type !== 'json_schema' || typeof format.schema !== 'object' || format.schema === null) return undefined;
  return { type: 'json_schema', name: 'output', schema: format.schema as Record<string, unknown> };
}

/** Anthropic's effort levels (`output_config.effort`) as the canonical ones. */
const EFFORTS: Readonly<Record<string, ReasoningEffort>> = { low: 'low', medium: 'medium', high: 'high', max: 'xhigh' };

/**
 * `thinking` (enabled with a budget, adaptive, disabled) and `output_config.effort` as the
 * canonical control, for an upstream of another format; undefined when neither is set.
 */
export function reasoningOf(body: MessagesBody): ReasoningRequest | undefined {
  const thinking = body.thinking;
  const effort = EFFORTS[String((body as { output_config?: { effort?: unknown } }).output_config?.effort)];
  if (!thinking && !effort) return undefined;
  const out: ReasoningRequest = {};
  if (thinking?.type === 'disabled') out.enabled = false;
  else if (thinking?.type === 'enabled' || thinking?.type === 'adaptive' || effort) out.enabled = true;
  if (effort) out.effort = effort;
  if (thinking?.type === 'enabled' && typeof thinking.budget_tokens === 'number')
    out.maxTokens = thinking.budget_tokens;
  return out;
}

/** `body` in canonical form; `maxTokens` is the plan's bound (`max_tokens`). */
export function exchangeOf(body: MessagesBody, maxTokens: number | undefined, stream: boolean): Exchange {
  const messages: Message[] = [];
  const system = typeof body.system === 'string' ? [{ type: 'text' as const, text: body.system }] : body.system;
  if (system && system.length > 0)
    messages.push({ role: 'system', parts: system.map((b) => partOf(b as Block)).filter((p): p is Part => !!p) });
  for (const turn of body.messages) messages.push(...messagesOf(turn));
  const x: Exchange = { messages, stream };
  const tools: Tool[] = [];
  for (const t of body.tools ?? [])
    if ('input_schema' in t)
      tools.push({
        name: t.name,
        parameters: t.input_schema as Record<string, unknown>,
        ...(typeof t.description === 'string' ? { description: t.description } : {}),
      });
  if (tools.length > 0) x.tools = tools;
  if (body.tool_choice) {
    x.toolChoice = toolChoiceOf(body.tool_choice);
    if (body.tool_choice.disable_parallel_tool_use === true) x.parallelToolCalls = false;
  }
  if (maxTokens !== undefined) x.maxTokens = maxTokens;
  if (body.temperature !== undefined) x.temperature = body.temperature;
  if (body.top_p !== undefined) x.topP = body.top_p;
  if (body.top_k !== undefined) x.topK = body.top_k;
  if (body.stop_sequences) x.stop = [...body.stop_sequences];
  const format = structuredOutput(body);
  if (format) x.responseFormat = format;
  // OpenAI-format upstreams bound `user`; a longer id (Claude Code's JSON of device and session) stays here.
  const user = body.metadata?.user_id;
  if (typeof user === 'string' && user.length <= 256) x.user = user;
  const reasoning = reasoningOf(body);
  if (reasoning) x.reasoning = reasoning;
  const cache = cacheOf(body);
  if (cache) x.cacheControl = cache;
  return x;
}
