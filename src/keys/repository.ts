/**
 * SQL for API keys. Every read and write that a tenant can trigger is scoped by `org_id`, so
 * one organization can never see or change another's keys; deleted keys are kept (soft delete)
 * so usage history still resolves their names.
 * @module
 */
import { NotFoundError } from '../errors';
import type { Queryable } from '../store/db';
import type { ApiKeyRecord, LimitReset } from './types';

const COLUMNS = `hash, org_id, workspace_id, name, label, is_management, disabled, limit_usd, limit_reset,
  include_byok_in_limit, expires_at, creator_user_id, external_user, created_at, updated_at, session_generation`;

interface Row {
  hash: string;
  org_id: string;
  workspace_id: string;
  name: string;
  label: string;
  is_management: boolean;
  disabled: boolean;
  limit_usd: number | null;
  limit_reset: LimitReset | null;
  include_byok_in_limit: boolean;
  expires_at: Date | null;
  creator_user_id: string | null;
  external_user: string | null;
  created_at: Date;
  updated_at: Date | null;
  session_generation: number;
}

function toRecord(r: Row): ApiKeyRecord {
  return {
    hash: r.hash,
    orgId: r.org_id,
    workspaceId: r.workspace_id,
    name: r.name,
    label: r.label,
    isManagement: r.is_management,
    disabled: r.disabled,
    limitUsd: r.limit_usd === null ? null : Number(r.limit_usd),
    limitReset: r.limit_reset,
    includeByokInLimit: r.include_byok_in_limit,
    expiresAt: r.expires_at,
    creatorUserId: r.creator_user_id,
    externalUser: r.external_user,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    sessionGeneration: Number(r.session_generation),
  };
}

/** Fields needed to insert a key. */
export type NewKey = Omit<ApiKeyRecord, 'createdAt' | 'updatedAt' | 'sessionGeneration'>;

/**
 * Insert a key into a live workspace of its organization and return the stored record.
 *
 * The liveness check and the insert are one statement: the workspace row is share-locked
 * (`FOR SHARE`) until the transaction ends. A workspace delete takes `FOR UPDATE` and then
 * counts live keys, so either this key commits first and the delete sees it (refused), or the
 * delete commits first and this statement, re-checking the row, finds no live workspace. A key
 * can therefore never end up live in a deleted workspace, whoever calls this (API, CLI, bootstrap).
 * @throws NotFoundError when the workspace is not a live workspace of the organization
 */
export async function insertKey(q: Queryable, k: NewKey): Promise<ApiKeyRecord> {
  const rows = await q.query<Row>(
    `WITH ws AS (SELECT id FROM workspaces WHERE id = $3 AND org_id = $2 AND deleted_at IS NULL FOR SHARE)
     INSERT INTO api_keys (hash, org_id, workspace_id, name, label, is_management, disabled, limit_usd, limit_reset,
       include_byok_in_limit, expires_at, creator_user_id, external_user)
     SELECT $1::text, $2::uuid, ws.id, $4::text, $5::text, $6::boolean, $7::boolean, $8::double precision, $9::text,
       $10::boolean, $11::timestamptz, $12::text, $13::text
       FROM ws RETURNING ${COLUMNS}`,
    [
      k.hash,
      k.orgId,
      k.workspaceId,
      k.name,
      k.label,
      k.isManagement,
      k.disabled,
      k.limitUsd,
      k.limitReset,
      k.includeByokInLimit,
      k.expiresAt,
      k.creatorUserId,
      k.externalUser,
    ],
  );
  if (!rows[0]) throw new NotFoundError();
  return toRecord(rows[0]);
}

/** Store the hash of the external user's own API key (SDK `external.api_key`); never the key itself. */
export async function setExternalApiKeyHash(q: Queryable, hash: string, externalKeyHash: string): Promise<void> {
  await q.query('UPDATE api_keys SET external_api_key_hash = $2 WHERE hash = $1', [hash, externalKeyHash]);
}

/** Look up a live key by hash across all organizations (authentication only). */
export async function findKeyForAuth(q: Queryable, hash: string): Promise<ApiKeyRecord | null> {
  const rows = await q.query<Row>(`SELECT ${COLUMNS} FROM api_keys WHERE hash = $1 AND deleted_at IS NULL`, [hash]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/**
 * A live key of this organization, or null.
 * @param lock - `update` inside a transaction that changes the key (see `enabledManagementKeys`)
 */
export async function findKey(
  q: Queryable,
  orgId: string,
  hash: string,
  lock: 'none' | 'update' = 'none',
): Promise<ApiKeyRecord | null> {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM api_keys WHERE hash = $1 AND org_id = $2 AND deleted_at IS NULL${lock === 'update' ? ' FOR UPDATE' : ''}`,
    [hash, orgId],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/**
 * Hashes of the organization's management keys that can sign in now (live, enabled, unexpired),
 * each row locked until the transaction ends. Two transactions disabling the last two keys
 * therefore run one after the other, and the second, re-reading the rows after the wait, sees
 * that only its own key is left.
 */
export async function enabledManagementKeys(q: Queryable, orgId: string): Promise<Set<string>> {
  const rows = await q.query<{ hash: string }>(
    `SELECT hash FROM api_keys
      WHERE org_id = $1 AND is_management AND deleted_at IS NULL AND NOT disabled
        AND (expires_at IS NULL OR expires_at > clock_timestamp())
      FOR UPDATE`,
    [orgId],
  );
  return new Set(rows.map((r) => r.hash));
}

/** Filters for {@link listKeys}. */
export interface KeyListFilter {
  orgId: string;
  workspaceId?: string;
  includeDisabled: boolean;
  includeManagement: boolean;
  offset: number;
  limit: number;
}

/** Live keys, most recent first. */
export async function listKeys(q: Queryable, f: KeyListFilter): Promise<ApiKeyRecord[]> {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM api_keys
      WHERE org_id = $1 AND deleted_at IS NULL
        AND ($2::uuid IS NULL OR workspace_id = $2::uuid)
        AND ($3 OR NOT disabled) AND ($4 OR NOT is_management)
      ORDER BY created_at DESC, hash ASC OFFSET $5 LIMIT $6`,
    [f.orgId, f.workspaceId ?? null, f.includeDisabled, f.includeManagement, f.offset, f.limit],
  );
  return rows.map(toRecord);
}

/** Changeable fields; `undefined` = leave as is, `null` = clear. */
export interface KeyPatch {
  name?: string;
  disabled?: boolean;
  limitUsd?: number | null;
  limitReset?: LimitReset | null;
  includeByokInLimit?: boolean;
}

/**
 * Apply a patch to a live key of this organization; null when there is none. Disabling moves the
 * key's session generation on, which ends its dashboard sessions for good.
 */
export async function updateKey(q: Queryable, orgId: string, hash: string, p: KeyPatch): Promise<ApiKeyRecord | null> {
  const rows = await q.query<Row>(
    `UPDATE api_keys SET
       name = CASE WHEN $3 THEN $4 ELSE name END,
       disabled = CASE WHEN $5 THEN $6 ELSE disabled END,
       limit_usd = CASE WHEN $7 THEN $8::double precision ELSE limit_usd END,
       limit_reset = CASE WHEN $9 THEN $10 ELSE limit_reset END,
       include_byok_in_limit = CASE WHEN $11 THEN $12 ELSE include_byok_in_limit END,
       session_generation = session_generation + CASE WHEN $5 AND $6 THEN 1 ELSE 0 END,
       updated_at = clock_timestamp()
     WHERE hash = $1 AND org_id = $2 AND deleted_at IS NULL
     RETURNING ${COLUMNS}`,
    [
      hash,
      orgId,
      p.name !== undefined,
      p.name ?? null,
      p.disabled !== undefined,
      p.disabled ?? null,
      p.limitUsd !== undefined,
      p.limitUsd ?? null,
      p.limitReset !== undefined,
      p.limitReset ?? null,
      p.includeByokInLimit !== undefined,
      p.includeByokInLimit ?? null,
    ],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/**
 * Soft-delete a key of this organization (its sessions end with it). Atomic: of two concurrent
 * deletes exactly one returns true.
 */
export async function deleteKey(q: Queryable, orgId: string, hash: string): Promise<boolean> {
  const rows = await q.query(
    `UPDATE api_keys SET deleted_at = clock_timestamp(), disabled = true, session_generation = session_generation + 1
      WHERE hash = $1 AND org_id = $2 AND deleted_at IS NULL RETURNING hash`,
    [hash, orgId],
  );
  return rows.length === 1;
}
