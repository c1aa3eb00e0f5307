/**
 * Changing, revoking and rotating keys, management keys included, shared by the management API
 * and the CLI so both keep the same rule: an organization always keeps one management key that
 * can sign in. Disabling or deleting the last one is refused (409); rotating it (a new secret in
 * its place, in one transaction) is the way to replace it. Each operation is one transaction that
 * locks the organization's enabled management keys, so two concurrent revocations cannot both
 * pass the check.
 * @module
 */
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import type { Database, Queryable } from '../store/db';
import * as repo from './repository';
import { mintKey } from './mint';
import type { ApiKeyRecord } from './types';

/** What revoking the last enabled management key would do, and what to do instead. */
function lastManagementKey(hash: string): ConflictError {
  return new ConflictError(
    "This is the organization's last enabled management key: disabling or deleting it would lock the organization out. " +
      `Rotate it instead (POST /api/v1/keys/${hash}/rotate, or switchyard keys rotate ${hash}), or create another management key first`,
    { hash },
  );
}

/**
 * The live key `hash` of `orgId`, locked, after checking that taking it out of service (disable or
 * delete) leaves the organization an enabled management key.
 */
async function lockForRevocation(tx: Queryable, orgId: string, hash: string): Promise<ApiKeyRecord> {
  const enabled = await repo.enabledManagementKeys(tx, orgId);
  const key = await repo.findKey(tx, orgId, hash, 'update');
  if (!key) throw new NotFoundError();
  if (enabled.has(key.hash) && enabled.size === 1) throw lastManagementKey(key.hash);
  return key;
}

/** Apply `patch` to a key of `orgId` (404 when there is none; 409 when it would disable the last management key). */
export function changeKey(db: Database, orgId: string, hash: string, patch: repo.KeyPatch): Promise<ApiKeyRecord> {
  return db.transaction(async (tx) => {
    if (patch.disabled === true) await lockForRevocation(tx, orgId, hash);
    const key = await repo.updateKey(tx, orgId, hash, patch);
    if (!key) throw new NotFoundError();
    return key;
  });
}

/** Delete a key of `orgId` (404 when there is none; 409 when it is the last enabled management key). */
export function revokeKey(db: Database, orgId: string, hash: string): Promise<ApiKeyRecord> {
  return db.transaction(async (tx) => {
    const key = await lockForRevocation(tx, orgId, hash);
    if (!(await repo.deleteKey(tx, orgId, hash))) throw new NotFoundError();
    return key;
  });
}

/**
 * Replace the management key `hash` of `orgId` by a new one with the same name and workspace, and
 * delete the old one, in one transaction: the organization is never without a management key,
 * and the old secret stops working (with its dashboard sessions) as the new one starts.
 * @returns the new key's record and secret (shown once), and the old key's record
 */
export function rotateManagementKey(
  db: Database,
  orgId: string,
  hash: string,
): Promise<{ record: ApiKeyRecord; secret: string; old: ApiKeyRecord }> {
  return db.transaction(async (tx) => {
    // Locks in the order every operation here takes them (the enabled management keys, then the key), so none deadlocks.
    await repo.enabledManagementKeys(tx, orgId);
    const old = await repo.findKey(tx, orgId, hash, 'update');
    if (!old) throw new NotFoundError();
    if (!old.isManagement) {
      throw new ValidationError(
        [{ path: 'params.hash', message: 'is not a management key' }],
        'Only management keys are rotated here; replace an API key by creating a new one and deleting the old',
      );
    }
    // Someone took it out of service on purpose: a rotation must not hand out a working secret for it.
    if (old.disabled)
      throw new ConflictError(
        'This management key is disabled: enable it first (PATCH {"disabled": false}) to rotate it',
        { hash: old.hash },
      );
    const minted = mintKey({
      orgId,
      workspaceId: old.workspaceId,
      name: old.name,
      isManagement: true,
      creatorUserId: old.creatorUserId,
    });
    const record = await repo.insertKey(tx, minted.row);
    await repo.deleteKey(tx, orgId, old.hash);
    return { record, secret: minted.secret, old };
  });
}
