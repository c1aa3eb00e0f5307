/**
 * What every `response` object repeats of its request, as OpenAI's and the hosted service's do
 * (the OpenRouter SDK's schema requires these members): instructions, metadata, sampling, the tool
 * choice and the function and custom tools the client sent.
 * @module
 */
import { clientJsonText } from '../providers/upstream-json';
import { toolsOf, type RequestTool, type ResponsesBody } from './types';

/**
 * The request's members a response repeats, as JSON members (no braces), written once per
 * request: a stream repeats them three times, and an agent's tools and instructions are tens of KB.
 */
export type Echo = string;

const repeated = (t: RequestTool) => t.type === 'function' || t.type === 'custom';

/** The function and custom tools: the client's own array when it holds no others, so its bytes are repeated. */
function echoedTools(body: ResponsesBody): RequestTool[] {
  const tools = toolsOf(body) ?? [];
  return tools.every(repeated) ? tools : tools.filter(repeated);
}

/** `body`'s echo (null where the client set nothing, as OpenAI answers), members the client's own copied as it wrote them. */
export function echoOf(body: ResponsesBody): Echo {
  return clientJsonText(echoMembers(body), body).slice(1, -1);
}

function echoMembers(body: ResponsesBody): Record<string, unknown> {
  return {
    instructions: body.instructions ?? null,
    metadata: body.metadata ?? {},
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    temperature: body.temperature ?? null,
    top_p: body.top_p ?? null,
    frequency_penalty: null,
    presence_penalty: null,
    max_output_tokens: body.max_output_tokens ?? null,
    previous_response_id: null,
    reasoning: body.reasoning ?? null,
    tool_choice: body.tool_choice ?? 'auto',
    tools: echoedTools(body),
    user: body.user ?? null,
  };
}
