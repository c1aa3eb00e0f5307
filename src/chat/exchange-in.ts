/**
 * The chat door's way in: a validated chat completions body (OpenAI's shape) in canonical form,
 * for an upstream of another format. Built only when such an adapter asks (`job.ts`).
 * @module
 */
import type { Exchange, ImageSource, Message, Part, ResponseFormat, Tool, ToolChoice } from '../inference/exchange';
import { reasoningOf, reasoningParts } from './reasoning-in';
import type { ChatBody, ChatContentPart, ChatMessage, ChatTool, ChatToolChoice } from './types';

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** An `image_url`: a `data:` URL is inline bytes, any other URL is fetched by the provider. */
function imageSource(url: string): ImageSource {
  const inline = DATA_URL.exec(url);
  return inline ? { kind: 'base64', mediaType: inline[1]!, data: inline[2]! } : { kind: 'url', url };
}

function partOf(part: ChatContentPart): Part {
  switch (part.type) {
    case 'text':
      return part.cache_control
        ? { type: 'text', text: part.text, cacheControl: part.cache_control }
        : { type: 'text', text: part.text };
    case 'image_url':
      return part.image_url.detail !== undefined
        ? { type: 'image', source: imageSource(part.image_url.url), detail: part.image_url.detail }
        : { type: 'image', source: imageSource(part.image_url.url) };
    case 'input_audio':
      return { type: 'audio', data: part.input_audio.data, format: part.input_audio.format };
    case 'file': {
      // `file_id`s were read into `file_data` before the plan (file-parts.ts).
      const inline = DATA_URL.exec(part.file.file_data ?? '');
      const file: Part = { type: 'file' };
      if (part.file.filename !== undefined) file.filename = part.file.filename;
      if (inline) Object.assign(file, { mediaType: inline[1]!, data: inline[2]! });
      return file;
    }
  }
}

function partsOf(content: string | ChatContentPart[] | null | undefined): Part[] {
  if (content === null || content === undefined) return [];
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content.map(partOf);
}

function messageOf(m: ChatMessage): Message {
  if (m.role === 'tool')
    return {
      role: 'tool',
      parts: [
        {
          type: 'tool_result',
          callId: m.tool_call_id,
          content: typeof m.content === 'string' ? m.content : partsOf(m.content),
        },
      ],
    };
  const parts = partsOf(m.content);
  // Reasoning comes first in an assistant turn: Anthropic wants its thinking blocks before the text and calls.
  if (m.role === 'assistant' && m.reasoning_details) parts.unshift(...reasoningParts(m.reasoning_details));
  if (m.role === 'assistant')
    for (const call of m.tool_calls ?? [])
      parts.push({ type: 'tool_call', id: call.id, name: call.function.name, arguments: call.function.arguments });
  return { role: m.role, parts };
}

function toolOf({ function: fn }: ChatTool): Tool {
  const tool: Tool = { name: fn.name };
  if (fn.description !== undefined) tool.description = fn.description;
  if (fn.parameters !== undefined) tool.parameters = fn.parameters;
  if (typeof fn.strict === 'boolean') tool.strict = fn.strict;
  return tool;
}

function toolChoiceOf(choice: ChatToolChoice): ToolChoice {
  return typeof choice === 'string' ? choice : { name: choice.function.name };
}

/** `response_format` in canonical form. */
export function responseFormatOf(body: ChatBody): ResponseFormat | undefined {
  const rf = body.response_format;
  if (!rf) return undefined;
  if (rf.type !== 'json_schema') return { type: rf.type };
  const { name, schema, strict } = rf.json_schema;
  return { type: 'json_schema', name, schema, strict: strict ?? undefined };
}

/** `body` in canonical form; `maxTokens` is the completion bound the plan read from it. */
export function exchangeOf(body: ChatBody, maxTokens: number | undefined, stream: boolean): Exchange {
  const x: Exchange = { messages: body.messages.map(messageOf), stream };
  if (body.cache_control) x.cacheControl = body.cache_control;
  if (body.tools) x.tools = body.tools.map(toolOf);
  if (body.tool_choice !== undefined) x.toolChoice = toolChoiceOf(body.tool_choice);
  if (typeof body.parallel_tool_calls === 'boolean') x.parallelToolCalls = body.parallel_tool_calls;
  if (maxTokens !== undefined) x.maxTokens = maxTokens;
  if (typeof body.temperature === 'number') x.temperature = body.temperature;
  if (typeof body.top_p === 'number') x.topP = body.top_p;
  if (typeof body.top_k === 'number') x.topK = body.top_k;
  if (body.stop !== undefined && body.stop !== null)
    x.stop = typeof body.stop === 'string' ? [body.stop] : [...body.stop];
  if (typeof body.seed === 'number') x.seed = body.seed;
  const rf = responseFormatOf(body);
  if (rf) x.responseFormat = rf;
  if (body.user !== undefined) x.user = body.user;
  const reasoning = reasoningOf(body);
  if (reasoning) x.reasoning = reasoning;
  return x;
}
