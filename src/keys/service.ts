/**
 * API key operations for the management API. Every operation is scoped to the caller's
 * organization; anything outside it is reported as not found. Changes invalidate the key on
 * every replica. Management keys are listed only by the CLI, but can be read, changed, revoked
 * and rotated here (see `lifecycle.ts`).
 * @module
 */
import type { Database, Queryable } from '../store/db';
import type { KeyCache } from '../auth/key-cache';
import { NotFoundError, ValidationError } from '../errors';
import { findDefaultWorkspace, findWorkspace, type RowLock } from '../workspaces/repository';
import * as repo from './repository';
import { hashSecret } from './secrets';
import { mintKey } from './mint';
import { changeKey, revokeKey, rotateManagementKey } from './lifecycle';
import type { ApiKeyRecord } from './types';
import type { Wire } from '../wire';

/** Validated body of `POST /keys` (schema `keys.create.body`). */
export type CreateKeyInput = Wire<'keys.create.body'>;

/** Validated body of `PATCH /keys/{hash}` (schema `keys.update.body`). */
export type UpdateKeyInput = Wire<'keys.update.body'>;

/**
 * Resolve a workspace reference (UUID or slug) of `orgId`, or its default workspace.
 * @param lock - `share` inside a transaction that adds to the workspace (see `RowLock`)
 */
export async function resolveWorkspaceId(
  q: Queryable,
  orgId: string,
  ref: string | undefined,
  lock: RowLock = 'none',
): Promise<string> {
  const ws = ref === undefined ? await findDefaultWorkspace(q, orgId, lock) : await findWorkspace(q, orgId, ref, lock);
  if (!ws) throw new NotFoundError();
  return ws.id;
}

/** Key operations bound to one database and cache. */
export class KeyService {
  constructor(
    private readonly db: Database,
    private readonly cache: KeyCache,
    private readonly now: () => number,
  ) {}

  /** Create an inference key; returns the record and the secret (shown once). */
  async create(orgId: string, input: CreateKeyInput): Promise<{ record: ApiKeyRecord; secret: string }> {
    const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
    if (expiresAt && expiresAt.getTime() <= this.now()) {
      throw new ValidationError([{ path: 'body.expires_at', message: 'must be in the future' }]);
    }
    // One transaction holding a share lock on the live workspace row: a concurrent workspace
    // delete either waits and then counts this key (refused, 409), or wins and this gets 404.
    const { record, secret } = await this.db.transaction(async (tx) => {
      const workspaceId = await resolveWorkspaceId(tx, orgId, input.workspace_id, 'share');
      const minted = mintKey({
        orgId,
        workspaceId,
        name: input.name,
        limitUsd: input.limit ?? null,
        limitReset: input.limit_reset ?? null,
        includeByokInLimit: input.include_byok_in_limit ?? false,
        expiresAt,
        creatorUserId: input.creator_user_id ?? null,
        externalUser: input.external?.user ?? null,
      });
      const inserted = await repo.insertKey(tx, minted.row);
      if (input.external?.api_key) {
        await repo.setExternalApiKeyHash(tx, inserted.hash, hashSecret(input.external.api_key));
      }
      return { record: inserted, secret: minted.secret };
    });
    // A lookup of this hash may have been cached as unknown (a client guessing early).
    await this.cache.invalidate(record.hash);
    return { record, secret };
  }

  /** One page of the organization's inference keys in a workspace (default: the default workspace). */
  async list(orgId: string, q: { include_disabled: boolean; offset: number; limit: number; workspace_id?: string }) {
    const workspaceId = await resolveWorkspaceId(this.db, orgId, q.workspace_id);
    return repo.listKeys(this.db, {
      orgId,
      workspaceId,
      includeDisabled: q.include_disabled,
      includeManagement: false,
      offset: q.offset,
      limit: q.limit,
    });
  }

  /** A key of the organization (inference or management), or 404. */
  async get(orgId: string, hash: string): Promise<ApiKeyRecord> {
    const key = await repo.findKey(this.db, orgId, hash.toLowerCase());
    if (!key) throw new NotFoundError();
    return key;
  }

  /**
   * Change a key, management keys included; takes effect on every replica within moments.
   * Disabling ends the key's dashboard sessions; the last enabled management key cannot be disabled (409).
   */
  async update(orgId: string, hash: string, input: UpdateKeyInput): Promise<ApiKeyRecord> {
    const key = await changeKey(this.db, orgId, hash.toLowerCase(), {
      name: input.name,
      disabled: input.disabled,
      limitUsd: input.limit,
      limitReset: input.limit_reset,
      includeByokInLimit: input.include_byok_in_limit,
    });
    await this.cache.invalidate(key.hash);
    return key;
  }

  /** Delete a key; 404 when it is unknown, already deleted, or another organization's; 409 for the last enabled management key. */
  async delete(orgId: string, hash: string): Promise<void> {
    const key = await revokeKey(this.db, orgId, hash.toLowerCase());
    await this.cache.invalidate(key.hash);
  }

  /** Replace a management key by a new secret (shown once); the old one stops working at once. */
  async rotate(orgId: string, hash: string): Promise<{ record: ApiKeyRecord; secret: string; old: ApiKeyRecord }> {
    const rotated = await rotateManagementKey(this.db, orgId, hash.toLowerCase());
    await Promise.all([this.cache.invalidate(rotated.old.hash), this.cache.invalidate(rotated.record.hash)]);
    return rotated;
  }
}
