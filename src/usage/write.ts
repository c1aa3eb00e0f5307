/**
 * Writing one answered call's usage record, as both services do it: through the recorder, inside
 * a `usage.record` span when tracing is on, and never failing the caller (the client has its
 * answer and the upstream has been paid, so a lost record is logged loudly instead).
 * @module
 */
import type { InferenceServiceDeps } from '../inference/service-deps';
import type { CallerContext } from '../inference/caller';
import { tracedWork } from '../observability/spans';
import type { UsageEvent } from './types';

/** Record `event` for the caller `ctx`. Settles once it is durable or its failure is logged; never rejects. */
export function writeUsage(deps: Pick<InferenceServiceDeps, 'recorder' | 'logger' | 'tracing'>, ctx: CallerContext, event: UsageEvent): Promise<void> {
  const { recorder, logger, tracing } = deps;
  let written: Promise<void>;
  try {
    written = recorder.record(event);
  } catch (err) {
    written = Promise.reject(err);
  }
  if (tracing && ctx.trace) written = tracedWork(tracing, ctx.trace, 'usage.record', written);
  const requestId = ctx.requestId;
  return written.catch((err: unknown) => {
    logger.error('usage record failed', { request_id: requestId, generation_id: event.id, err });
  });
}
