/**
 * The Responses door's body → OpenAI's own `/responses` body: the client's members as it wrote
 * them (copied as its bytes where large, `upstream-json.ts`), but for the gateway's fields, the
 * hosted tools the door leaves out, and what the gateway decides: the provider's model name, the
 * capped output bound, `store: false` (the gateway keeps no responses, so nothing is stored
 * upstream either) and whether to stream.
 * @module
 */
import type { Endpoint } from '../../catalog/types';
import { cappedCompletion } from '../../catalog/completion-cap';
import type { ResponsesBody, RequestTool } from '../../responses/types';
import { toolsOf } from '../../responses/types';
import type { ChatJob } from '../chat-types';

/**
 * The members of OpenAI's Responses request copied as the client sent them. The hosted service's
 * `models`, `provider`, `session_id` and Codex's `client_metadata` stay at the gateway;
 * `previous_response_id`, `conversation`, `prompt` and `background` were refused at the door.
 */
export const OPENAI_RESPONSES_FIELDS = [
  'instructions',
  'input',
  'tool_choice',
  'parallel_tool_calls',
  'max_tool_calls',
  'temperature',
  'top_p',
  'top_logprobs',
  'text',
  'include',
  'prompt_cache_key',
  'prompt_cache_retention',
  'metadata',
  'user',
  'safety_identifier',
  'service_tier',
  'truncation',
] as const satisfies ReadonlyArray<keyof ResponsesBody>;

/** The tools OpenAI runs as the model's own (function, custom, namespaces of them); hosted ones are left out, as on every path. */
const CLIENT_TOOLS: ReadonlySet<string> = new Set(['function', 'custom', 'namespace']);

/** The client's tools without hosted ones: its own array when it holds none, so its bytes are copied. */
function clientTools(body: ResponsesBody): RequestTool[] | undefined {
  const tools = toolsOf(body);
  if (!tools || tools.every((t) => CLIENT_TOOLS.has(t.type))) return tools;
  return tools.filter((t) => CLIENT_TOOLS.has(t.type));
}

/** OpenAI's `reasoning`: effort and summary (the hosted service's `max_tokens` is not OpenAI's). */
function reasoningOf(body: ResponsesBody): Record<string, unknown> | undefined {
  const r = body.reasoning;
  if (!r) return undefined;
  const out: Record<string, unknown> = {};
  if (r.effort != null) out.effort = r.effort;
  const summary = r.summary ?? r.generate_summary;
  if (summary != null) out.summary = summary;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The upstream body for `job` (whose native body is the Responses door's) on `endpoint`. */
export function toResponsesRequest(body: ResponsesBody, job: ChatJob, endpoint: Endpoint): Record<string, unknown> {
  const out: Record<string, unknown> = { model: endpoint.upstreamModel };
  for (const field of OPENAI_RESPONSES_FIELDS) if (body[field] !== undefined) out[field] = body[field];
  const tools = clientTools(body);
  if (tools !== undefined) out.tools = tools;
  const reasoning = endpoint.parameters.has('reasoning') ? reasoningOf(body) : undefined;
  if (reasoning) out.reasoning = reasoning;
  const bound = cappedCompletion(endpoint, job.maxTokens);
  if (bound !== undefined) out.max_output_tokens = bound;
  out.store = false;
  if (job.stream) {
    out.stream = true;
    if (body.stream_options != null) out.stream_options = body.stream_options;
  }
  return out;
}
