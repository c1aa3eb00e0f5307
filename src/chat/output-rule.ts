/**
 * Chat fields not every endpoint can honour, refused rather than dropped: `modalities` with
 * `audio` (audio output) narrows the plan to endpoints whose catalog entry lists audio output,
 * and `n` above 1 to those that list `n`, each a 400 naming the field when none does; `transforms` (the hosted service's `middle-out`
 * prompt compression), which the gateway does not apply, is a 400 unless empty.
 * @module
 */
import { ValidationError } from '../errors';
import { narrowedTo, type ChatPlan } from './plan';
import type { ChatBody } from './types';

/** `plan` under the rules (see the module comment). */
export function withOutputRules(plan: ChatPlan, body: ChatBody): ChatPlan {
  if (body.transforms && body.transforms.length > 0)
    throw new ValidationError([
      {
        path: 'body.transforms',
        message:
          'is not applied by this gateway (no middle-out compression); send a prompt that fits the model context, or []',
      },
    ]);
  return withChoicesRule(withAudioRule(plan, body), body);
}

function withAudioRule(plan: ChatPlan, body: ChatBody): ChatPlan {
  if (!body.modalities?.includes('audio')) return plan;
  const message = `audio output is served by none of ${plan.primary.id}'s providers`;
  return narrowedTo(
    plan,
    (e) => e.outputModalities.has('audio'),
    () => new ValidationError([{ path: 'body.modalities', message }]),
  );
}

/** `n` above 1: only endpoints whose catalog entry lists `n` answer several choices (the others would answer one). */
function withChoicesRule(plan: ChatPlan, body: ChatBody): ChatPlan {
  if ((body.n ?? 1) <= 1) return plan;
  const message = `several choices (n > 1) are served by none of ${plan.primary.id}'s providers; send n: 1 and repeat the request`;
  return narrowedTo(
    plan,
    (e) => e.parameters.has('n'),
    () => new ValidationError([{ path: 'body.n', message }]),
  );
}
