/**
 * The Workspace object on the wire, with every field the reference notes and `@openrouter/sdk`
 * require. Guardrails do not exist in this gateway, so `default_guardrail_id` (a required uuid
 * string in the SDK) is the nil UUID, meaning "no guardrail".
 * @module
 */
import type { WorkspaceRecord } from './repository';
import type { Workspace } from '../wire/types';

/** The nil UUID: the documented stand-in for "no default guardrail". */
export const NO_GUARDRAIL_ID = '00000000-0000-0000-0000-000000000000';

/** `Workspace` as returned by every `/workspaces` route. */
export function toWireWorkspace(w: WorkspaceRecord): Workspace {
  return {
    id: w.id,
    name: w.name,
    slug: w.slug,
    description: w.description,
    default_text_model: w.defaultTextModel,
    default_image_model: w.defaultImageModel,
    default_provider_sort: w.defaultProviderSort,
    default_guardrail_id: NO_GUARDRAIL_ID,
    is_observability_io_logging_enabled: w.isObservabilityIoLoggingEnabled,
    is_observability_broadcast_enabled: w.isObservabilityBroadcastEnabled,
    is_data_discount_logging_enabled: w.isDataDiscountLoggingEnabled,
    io_logging_sampling_rate: w.ioLoggingSamplingRate,
    io_logging_api_key_ids: w.ioLoggingApiKeyIds,
    disabled_server_tools: w.disabledServerTools,
    include_byok_in_budgets: w.includeByokInBudgets,
    is_embeddings_cache_enabled: w.embeddingsCacheEnabled,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt ? w.updatedAt.toISOString() : null,
    created_by: w.createdBy,
  };
}
