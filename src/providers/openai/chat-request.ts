/** A chat job → an OpenAI-compatible `/chat/completions` body: the chat door's own body, filtered, or the canonical one. */
import type { ChatParameter, Endpoint } from '../../catalog/types';
import type { ChatBody } from '../../chat/types';
import type { ChatJob } from '../chat-types';
import { chatBodyOf } from './chat-canonical';
import { cappedCompletion } from '../../catalog/completion-cap';

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
 * Sampling parameters OpenAI does not define but many compatible servers do (vLLM, Together,
 * DeepInfra, Fireworks): sent only to an endpoint whose catalog entry lists them, since OpenAI
 * itself refuses a request that carries one.
 */
export const EXTENSION_CHAT_FIELDS = [
  'top_k',
  'min_p',
  'repetition_penalty',
] as const satisfies ReadonlyArray<ChatParameter>;

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
  // From another door's canonical form (Responses' `reasoning.effort`); the chat door has no such field yet.
  if (!native && body.reasoning_effort !== undefined) out.reasoning_effort = body.reasoning_effort;
  if (job.stream) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  return out;
}
