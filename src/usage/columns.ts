/**
 * The `generations` columns a usage event fills, the event field each holds, its type and (for
 * optional fields) the value an event without it stores, so the JSON insert's column list,
 * record type and defaults are derived from one table.
 * @module
 */
import type { UsageEvent } from './types';

/**
 * Each column of `generations`, the event field it holds, its Postgres type, and for a NOT NULL
 * column whose event field is optional, the SQL value stored when the event lacks it (an event
 * from a replica that predates the field, or an embeddings event without the chat fields).
 */
export const USAGE_COLUMNS: ReadonlyArray<
  readonly [
    column: string,
    field: keyof UsageEvent,
    type: 'text' | 'timestamptz' | 'uuid' | 'int4' | 'int8' | 'float8' | 'bool',
    absent?: string,
  ]
> = [
  ['id', 'id', 'text'],
  ['created_at', 'createdAt', 'timestamptz'],
  ['org_id', 'orgId', 'uuid'],
  ['workspace_id', 'workspaceId', 'uuid'],
  ['key_hash', 'keyHash', 'text'],
  ['end_user', 'endUser', 'text'],
  ['session_id', 'sessionId', 'text'],
  ['api_type', 'apiType', 'text'],
  ['model', 'model', 'text'],
  ['provider', 'provider', 'text'],
  ['upstream_id', 'upstreamId', 'text'],
  ['tokens_prompt', 'tokensPrompt', 'int8'],
  ['tokens_completion', 'tokensCompletion', 'int8'],
  ['cost_usd', 'costUsd', 'float8'],
  ['latency_ms', 'latencyMs', 'int4'],
  ['generation_time_ms', 'generationTimeMs', 'int4'],
  ['attempts', 'attempts', 'int4'],
  ['status', 'status', 'text'],
  ['input_modality', 'inputModality', 'text'],
  ['user_agent', 'userAgent', 'text'],
  ['http_referer', 'httpReferer', 'text'],
  ['app_title', 'appTitle', 'text'],
  ['origin', 'origin', 'text'],
  ['finish_reason', 'finishReason', 'text'],
  ['variant', 'variant', 'text'],
  ['output_modality', 'outputModality', 'text'],
  ['tool_calls', 'toolCalls', 'int4'],
  ['is_byok', 'isByok', 'bool'],
  ['upstream_cost_usd', 'upstreamCostUsd', 'float8'],
  ['cached_tokens', 'cachedTokens', 'int8'],
  ['cache_saved_usd', 'cacheSavedUsd', 'float8'],
  ['streamed', 'streamed', 'bool', 'false'],
  ['ttft_ms', 'timeToFirstTokenMs', 'int4'],
  ['native_finish_reason', 'nativeFinishReason', 'text'],
  ['usage_estimated', 'usageEstimated', 'bool', 'false'],
  ['cache_write_tokens', 'cacheWriteTokens', 'int8', '0'],
  ['reasoning_tokens', 'reasoningTokens', 'int8', '0'],
  ['wildcard_priced', 'wildcardPriced', 'bool', 'false'],
];
