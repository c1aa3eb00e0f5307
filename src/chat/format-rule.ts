/**
 * A rule of the chat-like doors' plans: a JSON response format reaches each endpoint only in a
 * form its wire format has (`ChatAdapter.jsonOutput`). Anthropic's is structured outputs
 * (`output_config.format`), which takes a schema and exists on the endpoints whose catalog entry
 * lists `structured_outputs` (Claude 4.5 and later); Bedrock's Converse has none. So a
 * `json_schema` request leaves the other Anthropic endpoints and the Bedrock ones out, a
 * `json_object` one (no schema) every Anthropic and Bedrock endpoint, and it is a 400 naming the
 * field when no candidate is left: never an answer in prose to a client that asked for JSON.
 * @module
 */
import { ValidationError } from '../errors';
import type { ResponseFormat } from '../inference/exchange';
import { chatAdapterFor } from '../providers/chat-registry';
import type { Endpoint } from '../catalog/types';
import { narrowedTo, type ChatPlan } from './plan';

/** `plan` under the rule (see the module comment); `path` names the request's format field. */
export function withFormatRule(plan: ChatPlan, format: ResponseFormat | undefined, path: string): ChatPlan {
  if (!format || format.type === 'text') return plan;
  const schema = format.type === 'json_schema' && format.schema !== undefined;
  const keep = (e: Endpoint) => {
    const json = chatAdapterFor(e.provider.adapter).jsonOutput ?? 'any';
    return json === 'any' || (json === 'schema' && schema && e.parameters.has('structured_outputs'));
  };
  const message = schema
    ? `json_schema needs structured outputs, which ${plan.primary.id}'s providers do not offer; use a model that lists structured_outputs`
    : `json_object has no form on ${plan.primary.id}'s providers (Anthropic's structured outputs need a schema); send json_schema with a schema`;
  return narrowedTo(plan, keep, () => new ValidationError([{ path, message }]));
}
