/**
 * What a chat answer is billed, whole or streamed: the usage the upstream reported within what
 * the request makes possible (else the gateway's count), its cost, capped at the reservation.
 * @module
 */
import type { Endpoint } from '../catalog/types';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { ChatUsage } from '../providers/chat-types';
import { billedCost } from '../usage/bill';
import { boundChatUsage, chatUsageLimits } from '../usage/bounds';
import { chatCost } from './cost';
import type { ChatPlan } from './plan';

/** A chat answer's billed usage and cost, and whether the gateway counted any of it. */
export interface BilledChat {
  usage: ChatUsage;
  estimated: boolean;
  cost: number;
}

/**
 * Bill an answer of `endpoint` to the request `plan`: `reported` bounded (the prompt by the
 * plan's count, the completion by `generatedTokens()`, each only when needed), then priced and
 * capped at `reservedUsd` (what its budget held; the plan's estimate when not given).
 */
export function billChat(
  deps: { logger: Logger; metrics: Metrics },
  requestId: string,
  plan: ChatPlan,
  endpoint: Endpoint,
  reported: ChatUsage | null,
  generatedTokens: () => number,
  reservedUsd = plan.estimateUsd,
): BilledChat {
  const own = { prompt: () => plan.prompt.tokens, completion: generatedTokens };
  const { usage, estimated, replaced } = boundChatUsage(reported, chatUsageLimits(endpoint, plan.maxTokens), own);
  const cost = billedCost(deps, { api: 'chat', endpoint, requestId, replaced }, chatCost(endpoint, usage), reservedUsd);
  return { usage, estimated, cost };
}
