/**
 * The Responses door's way in: a validated body in canonical form. `instructions` comes first as
 * a system message; message items keep their role; function and custom tool calls and reasoning
 * items join the assistant turn they belong to (one assistant message until another role speaks);
 * tool outputs become tool results.
 * @module
 */
import type {
  Exchange,
  ImageSource,
  Message,
  Part,
  ReasoningRequest,
  ResponseFormat,
  Role,
  ToolChoice,
} from '../inference/exchange';
import { canonicalName, type ToolSet } from './tools';
import type { InputItem, InputPart, MessageItem, ResponsesBody } from './types';

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function imageSource(url: string): ImageSource {
  const inline = DATA_URL.exec(url);
  return inline ? { kind: 'base64', mediaType: inline[1]!, data: inline[2]! } : { kind: 'url', url };
}

function partOf(p: InputPart): Part | null {
  switch (p.type) {
    case 'refusal':
      return { type: 'text', text: p.refusal };
    case 'input_image':
      if (p.image_url) {
        const source = imageSource(p.image_url);
        return p.detail ? { type: 'image', source, detail: p.detail } : { type: 'image', source };
      }
      return p.file_id ? { type: 'file', fileId: p.file_id } : null;
    case 'input_file': {
      const file: Part = { type: 'file' };
      if (p.filename !== undefined) file.filename = p.filename;
      if (p.file_data !== undefined) file.data = p.file_data;
      if (p.file_id) file.fileId = p.file_id;
      return file;
    }
    case 'input_text':
    case 'output_text':
    case 'summary_text':
    case 'text':
      return { type: 'text', text: p.text };
  }
}

function partsOf(content: string | readonly InputPart[]): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map(partOf).filter((p): p is Part => p !== null);
}

function isMessage(item: InputItem): item is MessageItem {
  return 'role' in item && (item.type === undefined || item.type === 'message');
}

/** The message items and tool outputs become messages; calls and reasoning join the assistant's turn. */
function messagesOf(items: readonly InputItem[]): Message[] {
  const out: Message[] = [];
  const turn = (role: Role): Message => {
    const last = out[out.length - 1];
    if (last?.role === role) return last;
    const m: Message = { role, parts: [] };
    out.push(m);
    return m;
  };
  for (const item of items) {
    if (isMessage(item)) {
      const parts = partsOf(item.content);
      if (item.role === 'assistant') turn('assistant').parts.push(...parts);
      else out.push({ role: item.role, parts });
      continue;
    }
    switch (item.type) {
      case 'function_call':
        turn('assistant').parts.push({
          type: 'tool_call',
          id: item.call_id,
          name: canonicalName(item.name, item.namespace),
          arguments: item.arguments,
        });
        break;
      case 'custom_tool_call':
        turn('assistant').parts.push({
          type: 'tool_call',
          id: item.call_id,
          name: item.name,
          arguments: JSON.stringify({ input: item.input }),
        });
        break;
      case 'function_call_output':
      case 'custom_tool_call_output':
        turn('tool').parts.push({
          type: 'tool_result',
          callId: item.call_id,
          content: typeof item.output === 'string' ? item.output : partsOf(item.output),
        });
        break;
      case 'reasoning': {
        const text = (item.summary ?? []).map((s) => s.text).join('\n\n');
        const part: Part = { type: 'reasoning', format: 'openai-responses-v1', summary: true };
        if (text !== '') part.text = text;
        if (item.encrypted_content) part.encrypted = item.encrypted_content;
        if (typeof item.id === 'string') part.id = item.id;
        if (part.text !== undefined || part.encrypted !== undefined) turn('assistant').parts.push(part);
        break;
      }
    }
  }
  return out;
}

function toolChoiceOf(choice: NonNullable<ResponsesBody['tool_choice']>, tools: ToolSet): ToolChoice | undefined {
  if (typeof choice === 'string') return choice;
  if ((choice.type === 'function' || choice.type === 'custom') && choice.name)
    return { name: tools.tools.some((t) => t.name === choice.name) ? choice.name : canonicalName(choice.name) };
  if (choice.type === 'allowed_tools') return choice.mode ?? 'auto';
  return undefined;
}

/** `reasoning {effort, max_tokens}` as the canonical control; undefined when neither is set. */
export function reasoningOf(r: ResponsesBody['reasoning']): ReasoningRequest | undefined {
  const effort = r?.effort ?? undefined;
  const maxTokens = r?.max_tokens ?? undefined;
  if (effort === undefined && maxTokens === undefined) return undefined;
  const out: ReasoningRequest = { enabled: effort !== 'none' };
  if (effort !== undefined) out.effort = effort;
  if (maxTokens !== undefined) out.maxTokens = maxTokens;
  return out;
}

/** `text.format` in canonical form. */
export function responseFormatOf(body: ResponsesBody): ResponseFormat | undefined {
  const format = body.text?.format;
  if (!format) return undefined;
  return format.type === 'json_schema'
    ? { type: 'json_schema', name: format.name, schema: format.schema, strict: format.strict ?? undefined }
    : { type: format.type };
}

/** `body` in canonical form, its tools read by `tools`. */
export function exchangeOf(body: ResponsesBody, tools: ToolSet, stream: boolean): Exchange {
  const messages: Message[] = [];
  if (body.instructions) messages.push({ role: 'system', parts: [{ type: 'text', text: body.instructions }] });
  const input = body.input ?? [];
  messages.push(
    ...(typeof input === 'string' ? [{ role: 'user' as const, parts: partsOf(input) }] : messagesOf(input)),
  );
  const x: Exchange = { messages, stream };
  if (tools.tools.length > 0) x.tools = tools.tools;
  const choice = body.tool_choice != null ? toolChoiceOf(body.tool_choice, tools) : undefined;
  if (choice !== undefined && x.tools) x.toolChoice = choice;
  if (typeof body.parallel_tool_calls === 'boolean' && x.tools) x.parallelToolCalls = body.parallel_tool_calls;
  if (typeof body.max_output_tokens === 'number') x.maxTokens = body.max_output_tokens;
  if (typeof body.temperature === 'number') x.temperature = body.temperature;
  if (typeof body.top_p === 'number') x.topP = body.top_p;
  const format = responseFormatOf(body);
  if (format) x.responseFormat = format;
  const user = body.user ?? body.safety_identifier;
  if (user) x.user = user;
  const reasoning = reasoningOf(body.reasoning);
  if (reasoning) x.reasoning = reasoning;
  return x;
}
