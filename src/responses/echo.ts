/**
 * What every `response` object repeats of its request, as OpenAI's and the hosted service's do
 * (the OpenRouter SDK's schema requires these members): instructions, metadata, sampling, the tool
 * choice and the function and custom tools the client sent.
 * @module
 */
import { toolsOf, type ResponsesBody } from './types';

/** The request's members a response repeats. */
export type Echo = Readonly<Record<string, unknown>>;

/** `body`'s echo (null where the client set nothing, as OpenAI answers). */
export function echoOf(body: ResponsesBody): Echo {
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
    tools: (toolsOf(body) ?? []).filter((t) => t.type === 'function' || t.type === 'custom'),
    user: body.user ?? null,
  };
}
