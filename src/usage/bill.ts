/**
 * The last step before an answer's cost is final, shared by chat and embeddings: usage counts
 * the upstream got wrong are logged (once per answer, with the provider, never the body), and a
 * cost above what the request reserved is capped at the reservation, so the answer, its usage
 * record and the budget counters all carry the same figure and none passes a limit.
 * @module
 */
import type { Endpoint } from '../catalog/types';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import { withinReservation } from './bounds';

/** Which answer is being billed, for the log lines. */
export interface BilledAnswer {
  api: 'chat' | 'embeddings';
  endpoint: Endpoint;
  requestId: string;
  /** Reported counts replaced because they were out of bounds (`src/usage/bounds.ts`). */
  replaced: readonly string[];
}

/**
 * The cost to charge for `answer`: `costUsd`, capped at `reservedUsd` (counted and logged when
 * it had to be). Logs the replaced counts, if any.
 */
export function billedCost(
  deps: { logger: Logger; metrics: Metrics },
  answer: BilledAnswer,
  costUsd: number,
  reservedUsd: number,
): number {
  const { endpoint, requestId } = answer;
  const where = { request_id: requestId, api: answer.api, provider: endpoint.provider.slug, model: endpoint.modelId };
  if (answer.replaced.length > 0)
    deps.logger.warn('upstream usage out of bounds; the gateway counted instead', {
      ...where,
      fields: answer.replaced,
    });
  const { usd, capped } = withinReservation(costUsd, reservedUsd);
  if (capped) {
    deps.metrics.budgetSettleCapped.inc({ stage: 'answer' });
    deps.logger.warn('cost above its reservation; charged the reservation', {
      ...where,
      cost_usd: costUsd,
      reserved_usd: reservedUsd,
    });
  }
  return usd;
}
