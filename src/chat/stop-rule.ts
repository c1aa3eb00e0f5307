/**
 * A rule of the chat door's plan: a whitespace-only `stop` value is valid for OpenAI-format
 * upstreams but refused by Anthropic's (its stop sequences must hold a non-whitespace
 * character), so such a request leaves the Anthropic-format candidates out, and is a 400 naming
 * the value when no other candidate is left, never an upstream error.
 * @module
 */
import { ValidationError } from '../errors';
import { narrowedToFormats, type ChatPlan } from './plan';
import type { ChatBody } from './types';

/** Indexes of `stop`'s whitespace-only values. */
function blankStops(stop: ChatBody['stop']): number[] {
  const values = typeof stop === 'string' ? [stop] : (stop ?? []);
  return values.flatMap((v, i) => (v.trim() === '' ? [i] : []));
}

/** `plan` under the rule (see the module comment). */
export function withStopRule(plan: ChatPlan, body: ChatBody): ChatPlan {
  const blank = blankStops(body.stop);
  if (blank.length === 0) return plan;
  return narrowedToFormats(
    plan,
    (format) => format !== 'anthropic-messages',
    () =>
      new ValidationError(
        blank.map((i) => ({
          path: typeof body.stop === 'string' ? 'body.stop' : `body.stop.${i}`,
          message: `is whitespace only, which ${plan.primary.id}'s providers (Anthropic's format) refuse; use a stop value with a visible character`,
        })),
      ),
  );
}
