/**
 * The Responses door's first half: its body refused where it asks for state the gateway does not
 * keep, read once (tools and canonical form, shared by the plan and every attempt), and its plan
 * input.
 * @module
 */
import { modelIds } from '../chat/plan';
import { GatewayError, STATUS_MESSAGES, ValidationError } from '../errors';
import type { PlanInput } from '../inference/door';
import type { Exchange } from '../inference/exchange';
import { exchangeOf } from './exchange-in';
import { promptOf } from './prompt';
import { toolSetOf, type ToolSet } from './tools';
import { toolsOf, type ResponsesBody } from './types';

/** A body as the door reads it. */
export interface ReadBody {
  tools: ToolSet;
  exchange: Exchange;
}

const read = new WeakMap<ResponsesBody, ReadBody>();

/** A 400 whose message says what to send instead (the OpenAI SDK shows `error.message`). */
function refused(field: string, message: string): GatewayError {
  return new GatewayError(400, message, { metadata: { reason: STATUS_MESSAGES[400], field } });
}

/** Throws a 400 for what a stateless gateway cannot do: stored responses, conversations, prompts, background runs. */
export function refuseState(body: ResponsesBody): void {
  const stateful = 'the gateway is stateless (as the hosted service is) and keeps no responses';
  if (body.previous_response_id != null)
    throw refused(
      'previous_response_id',
      `previous_response_id is not supported: ${stateful}. Send the whole conversation in input (earlier output items included) instead.`,
    );
  if (body.conversation != null)
    throw refused('conversation', `conversation is not supported: ${stateful}. Send the whole conversation in input.`);
  if (body.prompt != null)
    throw refused('prompt', 'prompt (a stored prompt template) is not supported: send instructions and input instead.');
  if (body.background === true)
    throw refused('background', `background: true is not supported: ${stateful}. Send stream: true for a long answer.`);
}

/** The body read once: refused if stateful or without a conversation, its tools and canonical form. */
export function readBody(body: ResponsesBody): ReadBody {
  let r = read.get(body);
  if (!r) {
    refuseState(body);
    const tools = toolSetOf(toolsOf(body));
    r = { tools, exchange: exchangeOf(body, tools, body.stream === true) };
    if (!r.exchange.messages.some((m) => m.role !== 'system' && m.role !== 'developer'))
      throw new ValidationError([
        { path: 'body.input', message: 'is required: the conversation to answer (a string or items)' },
      ]);
    read.set(body, r);
  }
  return r;
}

/** The door's plan input. */
export function responsesPlanInput(body: ResponsesBody): PlanInput {
  const { exchange } = readBody(body);
  return {
    modelIds: modelIds(body.model, body.models),
    provider: body.provider,
    prompt: promptOf(exchange),
    maxTokens: body.max_output_tokens ?? undefined,
    stream: body.stream === true,
  };
}
