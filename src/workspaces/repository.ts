/**
 * SQL for workspaces, always scoped by organization. A workspace is addressed by UUID or slug
 * everywhere, so lookups accept either. Deleted workspaces are kept (soft delete, so usage
 * history still resolves their names) but are invisible to every lookup here, and their slug
 * becomes free again.
 * @module
 */
import type { Queryable } from '../store/db';
import { isUuid } from '../validation/formats';

/** How the hosted service may order providers by default for a workspace. */
export type ProviderSort = 'price' | 'throughput' | 'latency' | 'exacto';

/** A workspace row as the rest of the code sees it. */
export interface WorkspaceRecord {
  id: string;
  orgId: string;
  name: string;
  slug: string;
  description: string | null;
  isDefault: boolean;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date | null;
  defaultTextModel: string | null;
  defaultImageModel: string | null;
  defaultProviderSort: string | null;
  isObservabilityIoLoggingEnabled: boolean;
  isObservabilityBroadcastEnabled: boolean;
  isDataDiscountLoggingEnabled: boolean;
  ioLoggingSamplingRate: number;
  ioLoggingApiKeyIds: number[] | null;
  disabledServerTools: string[] | null;
  includeByokInBudgets: boolean;
  /** Embeddings cache switch; null follows the gateway default (`embeddingsCache.enabled`). */
  embeddingsCacheEnabled: boolean | null;
}

interface Row {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  description: string | null;
  is_default: boolean;
  created_by: string | null;
  created_at: Date;
  updated_at: Date | null;
  default_text_model: string | null;
  default_image_model: string | null;
  default_provider_sort: string | null;
  is_observability_io_logging_enabled: boolean;
  is_observability_broadcast_enabled: boolean;
  is_data_discount_logging_enabled: boolean;
  io_logging_sampling_rate: number;
  io_logging_api_key_ids: number[] | null;
  disabled_server_tools: string[] | null;
  include_byok_in_budgets: boolean;
  embeddings_cache_enabled: boolean | null;
}

const COLUMNS = `id, org_id, name, slug, description, is_default, created_by, created_at, updated_at,
  default_text_model, default_image_model, default_provider_sort, is_observability_io_logging_enabled,
  is_observability_broadcast_enabled, is_data_discount_logging_enabled, io_logging_sampling_rate,
  io_logging_api_key_ids, disabled_server_tools, include_byok_in_budgets, embeddings_cache_enabled`;

function toRecord(r: Row): WorkspaceRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    slug: r.slug,
    description: r.description,
    isDefault: r.is_default,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    defaultTextModel: r.default_text_model,
    defaultImageModel: r.default_image_model,
    defaultProviderSort: r.default_provider_sort,
    isObservabilityIoLoggingEnabled: r.is_observability_io_logging_enabled,
    isObservabilityBroadcastEnabled: r.is_observability_broadcast_enabled,
    isDataDiscountLoggingEnabled: r.is_data_discount_logging_enabled,
    ioLoggingSamplingRate: Number(r.io_logging_sampling_rate),
    ioLoggingApiKeyIds: r.io_logging_api_key_ids,
    disabledServerTools: r.disabled_server_tools,
    includeByokInBudgets: r.include_byok_in_budgets,
    embeddingsCacheEnabled: r.embeddings_cache_enabled,
  };
}

/**
 * How a lookup locks the row it finds, until the surrounding transaction ends:
 * - `share`: the workspace must stay live while something is added to it (a key, a file); a
 *   concurrent delete (which takes `update`) waits, then sees the addition (a key makes it
 *   refuse, a file is deleted with the workspace);
 * - `update`: changes of the workspace itself (delete, budgets, members) are serialised, and a
 *   `share` lookup waiting behind a delete re-checks the row and finds it deleted.
 */
export type RowLock = 'none' | 'share' | 'update';

const LOCK_SQL: Record<RowLock, string> = { none: '', share: ' FOR SHARE', update: ' FOR UPDATE' };

/**
 * A live workspace of `orgId` by UUID or slug, or null (also for another organization's
 * workspace, or a deleted one).
 * @param lock - row lock held until the surrounding transaction ends (see {@link RowLock})
 */
export async function findWorkspace(
  q: Queryable,
  orgId: string,
  ref: string,
  lock: RowLock = 'none',
): Promise<WorkspaceRecord | null> {
  const sql = LOCK_SQL[lock];
  const rows = isUuid(ref)
    ? await q.query<Row>(
        `SELECT ${COLUMNS} FROM workspaces WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL${sql}`,
        [orgId, ref.toLowerCase()],
      )
    : await q.query<Row>(
        `SELECT ${COLUMNS} FROM workspaces WHERE org_id = $1 AND slug = $2 AND deleted_at IS NULL${sql}`,
        [orgId, ref],
      );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** The organization's default workspace (every organization has exactly one). */
export async function findDefaultWorkspace(
  q: Queryable,
  orgId: string,
  lock: RowLock = 'none',
): Promise<WorkspaceRecord | null> {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM workspaces WHERE org_id = $1 AND is_default AND deleted_at IS NULL${LOCK_SQL[lock]}`,
    [orgId],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/**
 * Share-lock a live workspace of `orgId` by id until the transaction ends, so that what the
 * caller adds to it cannot land in a workspace deleted meanwhile.
 * @returns false when the workspace is not (or no longer) live
 */
export async function lockLiveWorkspace(q: Queryable, orgId: string, id: string): Promise<boolean> {
  const rows = await q.query(
    'SELECT id FROM workspaces WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL FOR SHARE',
    [id, orgId],
  );
  return rows.length === 1;
}

/** Settings a client may set on create and change with PATCH (`undefined` = not given). */
export interface WorkspaceSettings {
  name?: string;
  slug?: string;
  description?: string | null;
  defaultTextModel?: string | null;
  defaultImageModel?: string | null;
  defaultProviderSort?: string | null;
  isObservabilityIoLoggingEnabled?: boolean;
  isObservabilityBroadcastEnabled?: boolean;
  isDataDiscountLoggingEnabled?: boolean;
  ioLoggingSamplingRate?: number;
  ioLoggingApiKeyIds?: number[] | null;
  disabledServerTools?: string[] | null;
  includeByokInBudgets?: boolean;
  embeddingsCacheEnabled?: boolean | null;
}

/** Fields for a new workspace. */
export interface NewWorkspace extends WorkspaceSettings {
  id: string;
  orgId: string;
  name: string;
  slug: string;
  isDefault?: boolean;
  createdBy?: string | null;
}

const json = (v: unknown[] | null | undefined) => (v === undefined || v === null ? null : JSON.stringify(v));

/** Insert a workspace; the caller handles the unique-slug violation. */
export async function insertWorkspace(q: Queryable, w: NewWorkspace): Promise<WorkspaceRecord> {
  const rows = await q.query<Row>(
    `INSERT INTO workspaces (id, org_id, name, slug, description, is_default, created_by, default_text_model,
       default_image_model, default_provider_sort, is_observability_io_logging_enabled, is_observability_broadcast_enabled,
       is_data_discount_logging_enabled, io_logging_sampling_rate, io_logging_api_key_ids, disabled_server_tools,
       embeddings_cache_enabled)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15::jsonb,$16::jsonb,$17::boolean) RETURNING ${COLUMNS}`,
    [
      w.id,
      w.orgId,
      w.name,
      w.slug,
      w.description ?? null,
      w.isDefault ?? false,
      w.createdBy ?? null,
      w.defaultTextModel ?? null,
      w.defaultImageModel ?? null,
      w.defaultProviderSort ?? null,
      w.isObservabilityIoLoggingEnabled ?? false,
      w.isObservabilityBroadcastEnabled ?? false,
      w.isDataDiscountLoggingEnabled ?? false,
      w.ioLoggingSamplingRate ?? 1,
      json(w.ioLoggingApiKeyIds),
      json(w.disabledServerTools),
      w.embeddingsCacheEnabled ?? null,
    ],
  );
  return toRecord(rows[0] as Row);
}

/** One page of the organization's live workspaces (default first, then oldest first) and the total. */
export async function listWorkspaces(q: Queryable, orgId: string, offset: number, limit: number) {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM workspaces WHERE org_id = $1 AND deleted_at IS NULL
      ORDER BY is_default DESC, created_at, id OFFSET $2 LIMIT $3`,
    [orgId, offset, limit],
  );
  const count = await q.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM workspaces WHERE org_id = $1 AND deleted_at IS NULL',
    [orgId],
  );
  return { data: rows.map(toRecord), total: count[0]?.n ?? 0 };
}

/** Column, value and "was it given" for each patchable setting. */
function patchTriples(p: WorkspaceSettings): Array<[string, unknown, string]> {
  return [
    ['name', p.name, 'text'],
    ['slug', p.slug, 'text'],
    ['description', p.description, 'text'],
    ['default_text_model', p.defaultTextModel, 'text'],
    ['default_image_model', p.defaultImageModel, 'text'],
    ['default_provider_sort', p.defaultProviderSort, 'text'],
    ['is_observability_io_logging_enabled', p.isObservabilityIoLoggingEnabled, 'boolean'],
    ['is_observability_broadcast_enabled', p.isObservabilityBroadcastEnabled, 'boolean'],
    ['is_data_discount_logging_enabled', p.isDataDiscountLoggingEnabled, 'boolean'],
    ['io_logging_sampling_rate', p.ioLoggingSamplingRate, 'double precision'],
    ['io_logging_api_key_ids', p.ioLoggingApiKeyIds === undefined ? undefined : json(p.ioLoggingApiKeyIds), 'jsonb'],
    ['disabled_server_tools', p.disabledServerTools === undefined ? undefined : json(p.disabledServerTools), 'jsonb'],
    ['include_byok_in_budgets', p.includeByokInBudgets, 'boolean'],
    ['embeddings_cache_enabled', p.embeddingsCacheEnabled, 'boolean'],
  ];
}

/** Apply the given settings to a live workspace; null when there is none. */
export async function updateWorkspace(
  q: Queryable,
  orgId: string,
  id: string,
  p: WorkspaceSettings,
): Promise<WorkspaceRecord | null> {
  const params: unknown[] = [id, orgId];
  const sets = ['updated_at = clock_timestamp()'];
  for (const [column, value, type] of patchTriples(p)) {
    if (value === undefined) continue;
    params.push(value);
    sets.push(`${column} = $${params.length}::${type}`);
  }
  const rows = await q.query<Row>(
    `UPDATE workspaces SET ${sets.join(', ')} WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL RETURNING ${COLUMNS}`,
    params,
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/**
 * A live workspace's embeddings cache switch (null: follows the gateway default), or undefined
 * when there is no such live workspace. Read by the request path through a coherent cache.
 */
export async function findEmbeddingsCacheSetting(q: Queryable, id: string): Promise<boolean | null | undefined> {
  const rows = await q.query<{ enabled: boolean | null }>(
    'SELECT embeddings_cache_enabled AS enabled FROM workspaces WHERE id = $1 AND deleted_at IS NULL',
    [id],
  );
  return rows.length === 0 ? undefined : (rows[0] as { enabled: boolean | null }).enabled;
}

/** Live (not deleted) API keys in a workspace; deleting it is refused while there are any. */
export async function countLiveKeys(q: Queryable, workspaceId: string): Promise<number> {
  const rows = await q.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM api_keys WHERE workspace_id = $1 AND deleted_at IS NULL',
    [workspaceId],
  );
  return rows[0]?.n ?? 0;
}

/** Soft-delete a workspace and drop its budgets and memberships; false when it was not live. */
export async function softDeleteWorkspace(q: Queryable, orgId: string, id: string): Promise<boolean> {
  const rows = await q.query(
    `UPDATE workspaces SET deleted_at = clock_timestamp(), updated_at = clock_timestamp()
      WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL AND NOT is_default RETURNING id`,
    [id, orgId],
  );
  if (rows.length !== 1) return false;
  await q.query('DELETE FROM workspace_budgets WHERE workspace_id = $1', [id]);
  await q.query('DELETE FROM workspace_members WHERE workspace_id = $1', [id]);
  return true;
}

/** Is `err` a unique-constraint violation (duplicate slug)? Works for pg and PGlite errors. */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === '23505';
}
