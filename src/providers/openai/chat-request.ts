/** A chat job → an OpenAI-compatible `/chat/completions` body: the chat door's own body, filtered, or the canonical one. */
import type { ChatParameter, Endpoint } from '../../catalog/types';
import type { ChatBody } from '../../chat/types';
import type { ChatJob } from '../chat-types';
import { chatBodyOf } from './chat-canonical';
import { cappedCompletion } from '../../catalog/completion-cap';
import { reasoningOf } from '../../chat/reasoning-in';
import { effortOf } from '../../inference/reasoning';

/**
 * The members of OpenAI's request that are copied as the client sent them. Everything else
 * (the hosted service's `provider`, `models`, `session_id`, `usage`, `transforms`, `trace`,
 * `metadata`) stays at the gateway; parameters OpenAI does not define follow the endpoint
 * ({@link EXTENSION_CHAT_FIELDS}).
 */
export const OPENAI_CHAT_FIELDS = [
  'messages',
  'tools',
  'tool_choice',
  'response_format',
  'temperature',
  'top_p',
  'stop',
  'seed',
  'logprobs',
  'top_logprobs',
  'max_tokens',
  'max_completion_tokens',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'parallel_tool_calls',
  'user',
] as const satisfies ReadonlyArray<keyof ChatBody>;

/**
 * Parameters not every OpenAI-compatible server takes: sampling ones OpenAI does not define but
 * many compatible servers do (vLLM, Together, DeepInfra, Fireworks), and OpenAI's own that only
 * some models take (`prediction`, `verbosity`, `web_search_options`, …). Each is sent only to an
 * endpoint whose catalog entry lists it, since a server refuses a parameter it lacks.
 */
export const EXTENSION_CHAT_FIELDS = [
  'top_k',
  'min_p',
  'repetition_penalty',
  'top_a',
  'prediction',
  'service_tier',
  'prompt_cache_key',
  'verbosity',
  'web_search_options',
  'n',
] as const satisfies ReadonlyArray<ChatParameter>;

/**
 * The messages without the reasoning a client sent back on assistant turns (`reasoning`,
 * `reasoning_details`): OpenAI's chat format has no input form for it, and DeepSeek refuses it.
 * The array is copied only when a message carries some.
 */
function withoutReasoning(messages: ChatBody['messages']): ChatBody['messages'] {
  const carries = (m: ChatBody['messages'][number]) =>
    m.role === 'assistant' && (m.reasoning !== undefined || m.reasoning_details !== undefined);
  if (!messages.some(carries)) return messages;
  return messages.map((m) => {
    if (!carries(m)) return m;
    const { reasoning: _text, reasoning_details: _details, ...rest } = m as Extract<typeof m, { role: 'assistant' }>;
    return rest;
  });
}

/** The completion bounds, capped at the endpoint's maximum output. */
const COMPLETION_BOUNDS: ReadonlySet<string> = new Set(['max_tokens', 'max_completion_tokens']);

/** The upstream body: `model` is the provider's name for it; a stream asks for usage in its last chunk. */
export function toChatRequest(job: ChatJob, endpoint: Endpoint): Record<string, unknown> {
  const out: Record<string, unknown> = { model: endpoint.upstreamModel };
  const native = job.native?.format === 'openai-chat';
  const body: Partial<Record<keyof ChatBody, unknown>> = native ? job.native!.body : chatBodyOf(job.exchange());
  for (const field of OPENAI_CHAT_FIELDS) {
    const value = body[field];
    if (value !== undefined) out[field] = COMPLETION_BOUNDS.has(field) ? cappedCompletion(endpoint, value) : value;
  }
  for (const field of EXTENSION_CHAT_FIELDS) {
    const value = body[field];
    if (value !== undefined && value !== null && endpoint.parameters.has(field)) out[field] = value;
  }
  if (native && out.messages !== undefined) out.messages = withoutReasoning(out.messages as ChatBody['messages']);
  const reasoning = native ? reasoningOf(job.native!.body as ChatBody) : job.exchange().reasoning;
  // Only where the catalog says the endpoint takes it: OpenAI refuses a parameter a model lacks.
  if (reasoning?.enabled !== undefined && endpoint.parameters.has('reasoning'))
    out.reasoning_effort = effortOf(reasoning, cappedCompletion(endpoint, job.maxTokens));
  if (job.stream) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  return out;
}
