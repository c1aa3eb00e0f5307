/**
 * The `generations` columns a usage event fills, the event field each holds and its type, so the
 * JSON insert's column list and record type are derived from one table.
 * @module
 */
import type { UsageEvent } from './types';

/** Each column of `generations`, the event field it holds and its Postgres type. */
export const USAGE_COLUMNS: ReadonlyArray<readonly [column: string, field: keyof UsageEvent, type: 'text' | 'timestamptz' | 'uuid' | 'int4' | 'float8' | 'bool']> = [
  ['id', 'id', 'text'], ['created_at', 'createdAt', 'timestamptz'], ['org_id', 'orgId', 'uuid'],
  ['workspace_id', 'workspaceId', 'uuid'], ['key_hash', 'keyHash', 'text'], ['end_user', 'endUser', 'text'],
  ['session_id', 'sessionId', 'text'], ['api_type', 'apiType', 'text'], ['model', 'model', 'text'],
  ['provider', 'provider', 'text'], ['upstream_id', 'upstreamId', 'text'], ['tokens_prompt', 'tokensPrompt', 'int4'],
  ['tokens_completion', 'tokensCompletion', 'int4'], ['cost_usd', 'costUsd', 'float8'], ['latency_ms', 'latencyMs', 'int4'],
  ['generation_time_ms', 'generationTimeMs', 'int4'], ['attempts', 'attempts', 'int4'], ['status', 'status', 'text'],
  ['input_modality', 'inputModality', 'text'], ['user_agent', 'userAgent', 'text'], ['http_referer', 'httpReferer', 'text'],
  ['app_title', 'appTitle', 'text'], ['origin', 'origin', 'text'], ['finish_reason', 'finishReason', 'text'],
  ['variant', 'variant', 'text'], ['output_modality', 'outputModality', 'text'], ['tool_calls', 'toolCalls', 'int4'],
  ['is_byok', 'isByok', 'bool'], ['upstream_cost_usd', 'upstreamCostUsd', 'float8'], ['cached_tokens', 'cachedTokens', 'int4'],
  ['cache_saved_usd', 'cacheSavedUsd', 'float8'],
];
