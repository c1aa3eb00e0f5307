/** The validated chat body → an OpenAI-compatible `/chat/completions` body. */
import type { Endpoint } from '../../catalog/types';
import type { ChatBody } from '../../chat/types';
import type { ChatJob } from '../chat-types';

/**
 * The members of OpenAI's request that are copied as the client sent them. Everything else
 * (the hosted service's `provider`, `models`, `session_id`, `usage`, `transforms`, `trace`,
 * `metadata`, and parameters OpenAI does not define) stays at the gateway.
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

/** The upstream body: `model` is the provider's name for it; a stream asks for usage in its last chunk. */
export function toChatRequest(job: ChatJob, endpoint: Endpoint): Record<string, unknown> {
  const out: Record<string, unknown> = { model: endpoint.upstreamModel };
  for (const field of OPENAI_CHAT_FIELDS) {
    const value = job.body[field];
    if (value !== undefined) out[field] = value;
  }
  if (job.stream) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  return out;
}
