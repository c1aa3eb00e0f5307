/**
 * A canonical exchange → an Anthropic Messages request: system and developer text moves to
 * `system`, tool calls and results become `tool_use` / `tool_result` blocks, and turns of the same
 * role are merged, as Anthropic wants user and assistant turns to alternate. Reasoning asked for
 * becomes `thinking` with a budget (src/inference/reasoning.ts), and Claude's own thinking blocks
 * sent back open their assistant turn.
 * @module
 */
import type { Endpoint } from '../../catalog/types';
import type { Exchange, Message, Part, Tool, ToolChoice } from '../../inference/exchange';
import type { ChatJob } from '../chat-types';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { upstreamJson } from '../upstream-json';
import type {
  AnthropicMessage,
  AnthropicRequest,
  AnthropicToolChoice,
  DocumentBlock,
  ImageBlock,
  RedactedThinkingBlock,
  RequestBlock,
  ThinkingBlock,
  TextBlock,
} from './types';
import { cappedCompletion } from '../../catalog/completion-cap';
import { effortOf, thinkingBudget, wantsReasoning } from '../../inference/reasoning';

/** The completion bound when neither the client nor the catalog gives one (Anthropic requires `max_tokens`). */
export const DEFAULT_MAX_TOKENS = 4096;

/** A file part as a document block: a PDF as base64, text as text; null for any other type (the plan sends none here, see src/chat/file-parts.ts). */
function documentOf(p: Extract<Part, { type: 'file' }>): DocumentBlock | null {
  if (p.data === undefined) return null;
  const title = p.filename !== undefined ? { title: p.filename } : {};
  if (p.mediaType === 'application/pdf')
    return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: p.data }, ...title };
  if (p.mediaType?.startsWith('text/'))
    return {
      type: 'document',
      source: { type: 'text', media_type: 'text/plain', data: Buffer.from(p.data, 'base64').toString('utf8') },
      ...title,
    };
  return null;
}

/** Text, image and file parts as blocks (audio has no Anthropic form; candidate selection never sends it here). Empty texts are dropped: Anthropic refuses them. */
function blocksOf(parts: readonly Part[]): Array<TextBlock | ImageBlock | DocumentBlock> {
  const blocks: Array<TextBlock | ImageBlock | DocumentBlock> = [];
  for (const part of parts) {
    if (part.type === 'text' && part.text !== '')
      blocks.push(
        part.cacheControl
          ? { type: 'text', text: part.text, cache_control: part.cacheControl }
          : { type: 'text', text: part.text },
      );
    else if (part.type === 'file') {
      const document = documentOf(part);
      if (document) blocks.push(document);
    } else if (part.type === 'image') {
      const s = part.source;
      blocks.push({
        type: 'image',
        source:
          s.kind === 'base64' ? { type: 'base64', media_type: s.mediaType, data: s.data } : { type: 'url', url: s.url },
      });
    }
  }
  return blocks;
}

/**
 * An assistant turn's reasoning as Anthropic's blocks, which must open the turn: Claude's own
 * (signed text, redacted data) unchanged; another provider's is left out, as its signature is
 * valid only there.
 */
function thinkingBlocksOf(parts: readonly Part[]): Array<ThinkingBlock | RedactedThinkingBlock> {
  const blocks: Array<ThinkingBlock | RedactedThinkingBlock> = [];
  for (const p of parts) {
    if (p.type !== 'reasoning' || p.format !== 'anthropic-claude-v1') continue;
    if (p.text === undefined && p.encrypted !== undefined)
      blocks.push({ type: 'redacted_thinking', data: p.encrypted });
    else if (p.signature !== undefined)
      blocks.push({ type: 'thinking', thinking: p.text ?? '', signature: p.signature });
  }
  return blocks;
}

/** A tool call's JSON arguments as the `input` object Anthropic wants (`{}` when they are not an object). */
function inputOf(args: string): Record<string, unknown> {
  return asObject(parseJson(args)) ?? {};
}

/** One non-system message as a turn. */
function turnOf(m: Message): AnthropicMessage {
  const content: RequestBlock[] = [];
  if (m.role === 'tool') {
    for (const p of m.parts)
      if (p.type === 'tool_result')
        content.push({
          type: 'tool_result',
          tool_use_id: p.callId,
          content: typeof p.content === 'string' ? p.content : blocksOf(p.content),
        });
    return { role: 'user', content };
  }
  if (m.role === 'assistant') content.push(...thinkingBlocksOf(m.parts));
  content.push(...blocksOf(m.parts));
  if (m.role !== 'assistant') return { role: 'user', content };
  for (const p of m.parts)
    if (p.type === 'tool_call') content.push({ type: 'tool_use', id: p.id, name: p.name, input: inputOf(p.arguments) });
  return { role: 'assistant', content };
}

/** System and developer messages → `system`; the rest → alternating turns (adjacent same-role turns merged, empty ones dropped). */
export function splitMessages(messages: readonly Message[]): { system: TextBlock[]; turns: AnthropicMessage[] } {
  const system: TextBlock[] = [];
  const turns: AnthropicMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'developer') {
      for (const b of blocksOf(m.parts)) if (b.type === 'text') system.push(b);
      continue;
    }
    const turn = turnOf(m);
    if (turn.content.length === 0) continue;
    const last = turns[turns.length - 1];
    if (last?.role === turn.role) last.content.push(...turn.content);
    else turns.push(turn);
  }
  return { system, turns };
}

function toolsOf(tools: readonly Tool[]): NonNullable<AnthropicRequest['tools']> {
  return tools.map((t) => ({
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    input_schema: t.parameters ?? { type: 'object', properties: {} },
  }));
}

/** The canonical tool choice and parallel-call switch → Anthropic's one `tool_choice`. */
function toolChoiceOf(choice: ToolChoice | undefined, parallel: boolean | undefined): AnthropicToolChoice | undefined {
  const out: AnthropicToolChoice | undefined =
    choice === undefined
      ? undefined
      : choice === 'auto'
        ? { type: 'auto' }
        : choice === 'required'
          ? { type: 'any' }
          : choice === 'none'
            ? { type: 'none' }
            : { type: 'tool', name: choice.name };
  if (parallel !== false || out?.type === 'none') return out;
  return { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
}

/** The canonical efforts as Anthropic's (`max` is its highest). */
const CLAUDE_EFFORT = {
  none: 'low',
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'max',
} as const;

/** Claude's reasoning control: adaptive thinking with an effort, or a thinking budget. */
export interface ClaudeThinking {
  thinking?: NonNullable<AnthropicRequest['thinking']>;
  effort?: (typeof CLAUDE_EFFORT)[keyof typeof CLAUDE_EFFORT];
  /** Whether Claude thinks (always, on an endpoint marked `always`: Claude 5.5). */
  on: boolean;
}

/**
 * The reasoning asked for as Claude's control, under the completion bound `maxTokens`: adaptive
 * thinking with an effort on an endpoint marked `thinking: adaptive` or `always` (Claude 4.6 and
 * later, which refuse budgets), else a thinking budget. Shared by Anthropic's API and Bedrock's.
 */
export function claudeThinking(x: Exchange, endpoint: Endpoint, maxTokens: number): ClaudeThinking {
  const always = endpoint.thinking === 'always';
  if (!wantsReasoning(x.reasoning)) return { on: always };
  if (endpoint.thinking === 'adaptive' || always)
    return { thinking: { type: 'adaptive' }, effort: CLAUDE_EFFORT[effortOf(x.reasoning, maxTokens)], on: true };
  const budget = thinkingBudget(x.reasoning, maxTokens);
  return budget === null ? { on: false } : { thinking: { type: 'enabled', budget_tokens: budget }, on: true };
}

/** `claudeThinking` set on `out`; whether thinking is on. */
function withThinking(out: AnthropicRequest, x: Exchange, endpoint: Endpoint): boolean {
  const c = claudeThinking(x, endpoint, out.max_tokens);
  if (c.thinking) out.thinking = c.thinking;
  if (c.effort) out.output_config = { ...out.output_config, effort: c.effort };
  return c.on;
}

/** An exchange → the Messages body. `max_tokens` is required there: the client's, else the catalog's limit, else {@link DEFAULT_MAX_TOKENS}. */
export function toMessagesRequest(x: Exchange, endpoint: Endpoint): AnthropicRequest {
  const { system, turns } = splitMessages(x.messages);
  const out: AnthropicRequest = {
    model: endpoint.upstreamModel,
    max_tokens: cappedCompletion(endpoint, x.maxTokens) ?? endpoint.maxCompletionTokens ?? DEFAULT_MAX_TOKENS,
    messages: turns,
  };
  if (system.length > 0) out.system = system;
  if (x.tools && x.tools.length > 0) out.tools = toolsOf(x.tools);
  const toolChoice = out.tools ? toolChoiceOf(x.toolChoice, x.parallelToolCalls) : undefined;
  if (toolChoice) out.tool_choice = toolChoice;
  if (x.stop !== undefined) out.stop_sequences = x.stop;
  // Plans send a JSON response format only to endpoints with structured outputs (src/chat/format-rule.ts).
  const rf = x.responseFormat;
  if (rf?.type === 'json_schema' && rf.schema)
    out.output_config = { format: { type: 'json_schema', schema: rf.schema } };
  // Thinking can't be on while a tool is forced (Anthropic refuses it): the forced call wins.
  const forced = out.tool_choice?.type === 'any' || out.tool_choice?.type === 'tool';
  const thinking = forced ? endpoint.thinking === 'always' : withThinking(out, x, endpoint);
  // With thinking on, Anthropic takes no temperature or top_k and a top_p of 0.95 or more only.
  if (x.temperature !== undefined && !thinking) out.temperature = Math.min(x.temperature, 1);
  if (x.topP !== undefined && (!thinking || x.topP >= 0.95)) out.top_p = x.topP;
  if (x.topK !== undefined && !thinking) out.top_k = x.topK;
  if (x.user !== undefined) out.metadata = { user_id: x.user };
  if (x.cacheControl) out.cache_control = x.cacheControl;
  if (x.stream) out.stream = true;
  return out;
}

/** The hosted service's fields of a Messages door body, which stay at the gateway. */
export const GATEWAY_FIELDS: ReadonlySet<string> = new Set(['models', 'provider', 'session_id']);

/**
 * The job's request body: the Messages door's own body with only the gateway's fields changed
 * (`model` → the endpoint's name for it; `max_tokens` capped at its maximum output; `models`,
 * `provider`, `session_id` dropped; every other
 * field, block, signature and `cache_control` as sent), else from the canonical form.
 */
export function messagesBody(job: ChatJob, endpoint: Endpoint): string | Buffer {
  if (job.native?.format !== 'anthropic-messages') return JSON.stringify(toMessagesRequest(job.exchange(), endpoint));
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(job.native.body))
    if (!GATEWAY_FIELDS.has(field))
      out[field] =
        field === 'model' ? endpoint.upstreamModel : field === 'max_tokens' ? cappedCompletion(endpoint, value) : value;
  if (out.model === undefined) out.model = endpoint.upstreamModel;
  if (job.stream) out.stream = true;
  return upstreamJson(out, job.native.body);
}
