/**
 * Reading one usage record back (`GET /generation`), scoped to the caller's organization, and
 * its wire form: the Generation object of the reference notes (§9). Every field of that object
 * is present; what an embeddings call does not have (completion, media, search, moderation
 * figures) is null, and `total_cost` and `usage` both carry the recorded cost. A chat record
 * (§9.1) also carries whether it streamed, both finish reasons, reasoning and cached tokens, and
 * its time to first token as `latency`; its `api_type` is `completions`, the hosted service's
 * name for chat (the SDK's enum has no `chat`).
 * @module
 */
import type { Queryable } from '../store/db';
import { roundUsd } from '../catalog/usd';

/** A `generations` row as read for the wire. */
interface GenerationRow {
  id: string;
  created_at: Date | string;
  workspace_id: string;
  end_user: string | null;
  session_id: string | null;
  api_type: string;
  model: string;
  provider: string | null;
  upstream_id: string | null;
  /** bigint columns: node-postgres reads them as strings, PGlite as numbers. */
  tokens_prompt: number | string;
  tokens_completion: number | string;
  cost_usd: number;
  cached_tokens: number | string | null;
  cache_saved_usd: number | null;
  latency_ms: number | null;
  generation_time_ms: number | null;
  attempts: number;
  user_agent: string | null;
  http_referer: string | null;
  finish_reason: string | null;
  native_finish_reason: string | null;
  streamed: boolean;
  ttft_ms: number | null;
  reasoning_tokens: number | string;
  wildcard_priced: boolean;
}

/** The Generation wire object (snake_case, as the SDK's `getGeneration` parses it). */
export type GenerationWire = Record<string, string | number | boolean | null | unknown[]>;

/**
 * The generation `id` of organization `orgId`, or null when it does not exist, belongs to
 * another organization, or has not been written by the outbox yet.
 */
export async function findGeneration(db: Queryable, orgId: string, id: string): Promise<GenerationRow | null> {
  const rows = await db.query<GenerationRow>(
    `SELECT id, created_at, workspace_id::text AS workspace_id, end_user, session_id, api_type, model, provider,
            upstream_id, tokens_prompt, tokens_completion, cost_usd, latency_ms, generation_time_ms, attempts,
            user_agent, http_referer, cached_tokens, cache_saved_usd, finish_reason, native_finish_reason, streamed,
            ttft_ms, reasoning_tokens, wildcard_priced
       FROM generations WHERE id = $1 AND org_id = $2`,
    [id, orgId],
  );
  return rows[0] ?? null;
}

/** Map a row to the Generation object; every field of the reference notes is present. */
export function toGenerationWire(row: GenerationRow): GenerationWire {
  const cost = roundUsd(Number(row.cost_usd));
  const chat = row.api_type === 'chat';
  return {
    id: row.id,
    upstream_id: row.upstream_id,
    total_cost: cost,
    cache_discount: row.cache_saved_usd === null ? null : roundUsd(Number(row.cache_saved_usd)),
    upstream_inference_cost: null,
    created_at: new Date(row.created_at).toISOString(),
    model: row.model,
    app_id: null,
    streamed: row.streamed === true,
    cancelled: false,
    provider_name: row.provider,
    latency: chat ? row.ttft_ms : row.latency_ms,
    moderation_latency: null,
    generation_time: row.generation_time_ms,
    finish_reason: chat ? row.finish_reason : null,
    native_finish_reason: chat ? row.native_finish_reason : null,
    tokens_prompt: Number(row.tokens_prompt),
    tokens_completion: Number(row.tokens_completion),
    native_tokens_prompt: Number(row.tokens_prompt),
    native_tokens_completion: Number(row.tokens_completion),
    native_tokens_completion_images: null,
    native_tokens_reasoning: chat ? Number(row.reasoning_tokens) : null,
    native_tokens_cached: chat || Number(row.cached_tokens ?? 0) > 0 ? Number(row.cached_tokens) : null,
    num_media_prompt: null,
    num_input_audio_prompt: null,
    num_media_completion: null,
    num_search_results: null,
    num_fetches: null,
    origin: row.http_referer ?? '',
    usage: cost,
    is_byok: false,
    external_user: row.end_user,
    api_type: chat ? 'completions' : row.api_type,
    router: null,
    provider_responses: null,
    user_agent: row.user_agent,
    http_referer: row.http_referer,
    data_region: 'global',
    preset_id: null,
    service_tier: null,
    web_search_engine: null,
    request_id: null,
    response_cache_source_id: null,
    session_id: row.session_id,
    workspace_id: row.workspace_id,
    // The gateway's own field: the model is not in the catalog, and its cost is its provider wildcard's default price.
    wildcard_priced: row.wildcard_priced === true,
  };
}
