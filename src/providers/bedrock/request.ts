/**
 * A canonical exchange → a Converse request: system and developer text moves to `system`, user
 * and tool turns are `user`, the assistant's `assistant`, adjacent turns of one role merged (they
 * must alternate); tools become `toolSpec`s, the sampling settings `inferenceConfig`. What
 * Converse has no field for goes to the model in `additionalModelRequestFields`: Claude's
 * `thinking` (on endpoints the catalog marks with a `thinking` style) and `top_k` (where the
 * endpoint lists it). Converse has no `tool_choice: none`: such a request sends no tools unless
 * the conversation already holds tool calls (which Bedrock requires them for).
 * @module
 */
import type { Endpoint } from '../../catalog/types';
import { cappedCompletion } from '../../catalog/completion-cap';
import type { Exchange, Message, Tool, ToolChoice } from '../../inference/exchange';
import type { ChatJob } from '../chat-types';
import { claudeThinking, DEFAULT_MAX_TOKENS } from '../anthropic/request';
import { contentBlocks, DocumentNames, reasoningBlocks, toolResultBlock, toolUseBlock } from './content';
import type { BedrockBlock, BedrockMessage, BedrockTool, BedrockToolChoice, ConverseRequest } from './types';

/** One non-system message as a turn. */
function turnOf(m: Message, docs: DocumentNames): BedrockMessage {
  if (m.role === 'tool')
    return {
      role: 'user',
      content: m.parts.flatMap((p) => (p.type === 'tool_result' ? [toolResultBlock(p, docs)] : [])),
    };
  const content: BedrockBlock[] = m.role === 'assistant' ? reasoningBlocks(m.parts) : [];
  for (const p of m.parts)
    if (p.type === 'tool_call') {
      if (m.role === 'assistant') content.push(toolUseBlock(p));
    } else content.push(...contentBlocks(p, docs));
  return { role: m.role === 'assistant' ? 'assistant' : 'user', content };
}

/** System text and the alternating turns of `x`. */
function split(x: Exchange): { system: BedrockBlock[]; messages: BedrockMessage[] } {
  const docs = new DocumentNames();
  const system: BedrockBlock[] = [];
  const messages: BedrockMessage[] = [];
  for (const m of x.messages) {
    if (m.role === 'system' || m.role === 'developer') {
      for (const p of m.parts) if (p.type === 'text') system.push(...contentBlocks(p, docs));
      continue;
    }
    const turn = turnOf(m, docs);
    if (turn.content.length === 0) continue;
    const last = messages[messages.length - 1];
    if (last?.role === turn.role) last.content.push(...turn.content);
    else messages.push(turn);
  }
  return { system, messages };
}

function toolsOf(tools: readonly Tool[]): BedrockTool[] {
  return tools.map((t) => ({
    toolSpec: {
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      inputSchema: { json: t.parameters ?? { type: 'object', properties: {} } },
    },
  }));
}

function toolChoiceOf(choice: ToolChoice | undefined): BedrockToolChoice | undefined {
  if (choice === undefined || choice === 'none') return undefined;
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  return { tool: { name: choice.name } };
}

/** Whether a turn already holds tool calls or results (then Converse needs the tools declared). */
function hasToolBlocks(messages: readonly BedrockMessage[]): boolean {
  return messages.some((m) => m.content.some((b) => b.toolUse !== undefined || b.toolResult !== undefined));
}

/** Claude's thinking for `x` on `endpoint` into `extra` (an endpoint without a `thinking` style is no Claude); whether thinking is on. */
function withThinking(extra: Record<string, unknown>, x: Exchange, endpoint: Endpoint, maxTokens: number): boolean {
  if (endpoint.thinking === undefined) return false;
  const c = claudeThinking(x, endpoint, maxTokens);
  if (c.thinking) extra.thinking = c.thinking;
  if (c.effort) extra.output_config = { effort: c.effort };
  return c.on;
}

/** The job as a Converse body (the model and the stream are in the URL). */
export function toConverseRequest(job: ChatJob, endpoint: Endpoint): ConverseRequest {
  const x = job.exchange();
  const { system, messages } = split(x);
  const out: ConverseRequest = { messages };
  if (system.length > 0) out.system = system;
  if (x.cacheControl && endpoint.pricing.cacheRead !== null)
    messages.at(-1)?.content.push({ cachePoint: { type: 'default' } });
  const choice = toolChoiceOf(x.toolChoice);
  if (x.tools && x.tools.length > 0 && (x.toolChoice !== 'none' || hasToolBlocks(messages)))
    out.toolConfig = { tools: toolsOf(x.tools), ...(choice ? { toolChoice: choice } : {}) };
  const thinks = endpoint.thinking !== undefined;
  const bound =
    cappedCompletion(endpoint, x.maxTokens) ??
    (thinks ? (endpoint.maxCompletionTokens ?? DEFAULT_MAX_TOKENS) : undefined);
  const extra: Record<string, unknown> = {};
  const forced = choice !== undefined && !('auto' in choice);
  // Claude refuses thinking while a tool is forced: the forced call wins.
  const thinking =
    bound !== undefined && !forced ? withThinking(extra, x, endpoint, bound) : endpoint.thinking === 'always';
  const config: NonNullable<ConverseRequest['inferenceConfig']> = {};
  if (bound !== undefined) config.maxTokens = bound;
  if (x.temperature !== undefined && !thinking) config.temperature = Math.min(x.temperature, 1);
  if (x.topP !== undefined && (!thinking || x.topP >= 0.95)) config.topP = x.topP;
  if (x.stop !== undefined && x.stop.length > 0) config.stopSequences = x.stop;
  if (Object.keys(config).length > 0) out.inferenceConfig = config;
  if (x.topK !== undefined && !thinking && endpoint.parameters.has('top_k')) extra.top_k = x.topK;
  if (Object.keys(extra).length > 0) out.additionalModelRequestFields = extra;
  return out;
}
