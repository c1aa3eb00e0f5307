/**
 * The validated chat body (OpenAI's shape) → an Anthropic Messages request: system prompts move
 * to `system`, tool calls and results become `tool_use` / `tool_result` blocks, and turns of the
 * same role are merged, as Anthropic wants user and assistant turns to alternate.
 * @module
 */
import type { Endpoint } from '../../catalog/types';
import type { ChatContentPart, ChatMessage, ChatTool, ChatToolChoice } from '../../chat/types';
import type { ChatJob } from '../chat-types';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import type { AnthropicMessage, AnthropicRequest, AnthropicToolChoice, ImageBlock, RequestBlock, TextBlock } from './types';

/** The completion bound when neither the client nor the catalog gives one (Anthropic requires `max_tokens`). */
export const DEFAULT_MAX_TOKENS = 4096;

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** An `image_url` part: a `data:` URL is sent inline, any other URL for Anthropic to fetch. */
function imageBlock(url: string): ImageBlock {
  const inline = DATA_URL.exec(url);
  return inline ? { type: 'image', source: { type: 'base64', media_type: inline[1]!, data: inline[2]! } } : { type: 'image', source: { type: 'url', url } };
}

/** Text and image parts as blocks (audio has no Anthropic form; candidate selection never sends it here). Empty texts are dropped: Anthropic refuses them. */
function blocksOf(content: string | ChatContentPart[] | null | undefined): Array<TextBlock | ImageBlock> {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: Array<TextBlock | ImageBlock> = [];
  for (const part of content) {
    if (part.type === 'text' && part.text !== '') blocks.push(part.cache_control ? { type: 'text', text: part.text, cache_control: part.cache_control } : { type: 'text', text: part.text });
    else if (part.type === 'image_url') blocks.push(imageBlock(part.image_url.url));
  }
  return blocks;
}

/** A tool call's JSON arguments as the `input` object Anthropic wants (`{}` when they are not an object). */
function inputOf(args: string): Record<string, unknown> {
  return asObject(parseJson(args)) ?? {};
}

/** One non-system message as a turn. */
function turnOf(m: ChatMessage): AnthropicMessage {
  if (m.role === 'tool') {
    const blocks = blocksOf(m.content);
    const content = typeof m.content === 'string' ? m.content : blocks;
    return { role: 'user', content: [{ type: 'tool_result', tool_use_id: m.tool_call_id, content }] };
  }
  if (m.role !== 'assistant') return { role: 'user', content: blocksOf(m.content) };
  const content: RequestBlock[] = blocksOf(m.content);
  for (const call of m.tool_calls ?? []) content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: inputOf(call.function.arguments) });
  return { role: 'assistant', content };
}

/** System and developer messages → `system`; the rest → alternating turns (adjacent same-role turns merged, empty ones dropped). */
export function splitMessages(messages: readonly ChatMessage[]): { system: TextBlock[]; turns: AnthropicMessage[] } {
  const system: TextBlock[] = [];
  const turns: AnthropicMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'developer') {
      for (const b of blocksOf(m.content)) if (b.type === 'text') system.push(b);
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

function toolsOf(tools: readonly ChatTool[]): NonNullable<AnthropicRequest['tools']> {
  return tools.map(({ function: fn }) => ({
    name: fn.name,
    ...(fn.description !== undefined ? { description: fn.description } : {}),
    input_schema: fn.parameters ?? { type: 'object', properties: {} },
  }));
}

/** OpenAI's `tool_choice` and `parallel_tool_calls` → Anthropic's one `tool_choice`. */
function toolChoiceOf(choice: ChatToolChoice | undefined, parallel: boolean | null | undefined): AnthropicToolChoice | undefined {
  const out: AnthropicToolChoice | undefined =
    choice === undefined ? undefined
    : choice === 'auto' ? { type: 'auto' }
    : choice === 'required' ? { type: 'any' }
    : choice === 'none' ? { type: 'none' }
    : { type: 'tool', name: choice.function.name };
  if (parallel !== false || out?.type === 'none') return out;
  return { ...(out ?? { type: 'auto' }), disable_parallel_tool_use: true };
}

/** Our job → the Messages body. `max_tokens` is required there: the client's, else the catalog's limit, else {@link DEFAULT_MAX_TOKENS}. */
export function toMessagesRequest(job: ChatJob, endpoint: Endpoint): AnthropicRequest {
  const { body } = job;
  const { system, turns } = splitMessages(body.messages);
  const out: AnthropicRequest = { model: endpoint.upstreamModel, max_tokens: job.maxTokens ?? endpoint.maxCompletionTokens ?? DEFAULT_MAX_TOKENS, messages: turns };
  if (system.length > 0) out.system = system;
  if (body.tools && body.tools.length > 0) out.tools = toolsOf(body.tools);
  const toolChoice = out.tools ? toolChoiceOf(body.tool_choice, body.parallel_tool_calls) : undefined;
  if (toolChoice) out.tool_choice = toolChoice;
  if (body.stop !== undefined && body.stop !== null) out.stop_sequences = typeof body.stop === 'string' ? [body.stop] : body.stop;
  // Anthropic's temperature range is 0–1, OpenAI's 0–2: the top of ours is the top of theirs.
  if (typeof body.temperature === 'number') out.temperature = Math.min(body.temperature, 1);
  if (typeof body.top_p === 'number') out.top_p = body.top_p;
  if (typeof body.top_k === 'number') out.top_k = body.top_k;
  if (body.user !== undefined) out.metadata = { user_id: body.user };
  if (job.stream) out.stream = true;
  return out;
}
